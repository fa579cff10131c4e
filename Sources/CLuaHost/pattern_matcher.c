/*
 * pattern_matcher.c: Lua 5.4 patterns, matched by backtracking, with every
 * step charged to the state's budget.
 *
 * The language (Lua 5.4 manual, section 6.4.1): single-character classes
 * ('.', '%a' and the other letter classes with their upper-case complements
 * (and '%z', which the manual no longer lists but Lua 5.4 still matches),
 * '%' before any other character for that character, sets '[...]' and
 * '[^...]' with ranges and classes), each optionally followed by '*', '+',
 * '-' (shortest) or '?'; captures '(...)' and position captures '()';
 * back-references '%1'..'%9'; '%bxy' balanced runs; '%f[set]' frontiers; a
 * final '$' anchors at the end (the callers handle a leading '^').
 *
 * What a pattern matches is defined by the order in which Lua tries the
 * alternatives, so the search below tries them in that order, and keeps
 * Lua's limits and messages: 32 captures, 200 nested alternatives ("pattern
 * too complex"). The difference is the budget: every step counts, so a
 * pattern that backtracks exponentially stops at the instruction limit or
 * the deadline instead of running for minutes.
 */
#include <ctype.h>
#include <string.h>

#include "sandbox_internal.h"

void bm_matcher_init(bm_matcher *m, lua_State *L, const char *subject, size_t ls,
                     const char *pattern, size_t lp) {
    m->L = L;
    m->subject = subject;
    m->subject_end = subject + ls;
    m->pattern_end = pattern + lp;
    m->depth_left = BM_PATTERN_MAX_DEPTH;
    m->count = 0;
    m->work = 0;
}

void bm_matcher_settle(bm_matcher *m) {
    if (m->work > 0) {
        long long work = m->work;
        m->work = 0;
        bm_charge_work(m->L, work, 0);
    }
}

void bm_matcher_tick(bm_matcher *m, long long units) {
    m->work += units;
    if (m->work >= BM_WORK_BATCH) {
        long long work = m->work;
        m->work = 0;
        bm_charge_work(m->L, work, 1);
    }
}

/* Whether byte `c` is in the class named by letter `letter` ('%a' ...);
   any other character stands for itself. */
static int in_class(int c, int letter) {
    int yes;
    switch (tolower(letter)) {
    case 'a': yes = isalpha(c); break;
    case 'c': yes = iscntrl(c); break;
    case 'd': yes = isdigit(c); break;
    case 'g': yes = isgraph(c); break;
    case 'l': yes = islower(c); break;
    case 'p': yes = ispunct(c); break;
    case 's': yes = isspace(c); break;
    case 'u': yes = isupper(c); break;
    case 'w': yes = isalnum(c); break;
    case 'x': yes = isxdigit(c); break;
    case 'z': yes = c == 0; break; /* deprecated in the manual, still in Lua 5.4 */
    default: return letter == c;
    }
    if (isupper(letter)) return !yes;
    return yes != 0;
}

/* Whether byte `c` is in the set that opens at `open` ('[') and closes at
   `close` (its ']'). */
static int in_set(int c, const char *open, const char *close) {
    const char *p = open + 1;
    int inside = 1;
    if (*p == '^') {
        inside = 0;
        p++;
    }
    for (; p < close; p++) {
        if (*p == '%') {
            p++;
            if (in_class(c, (unsigned char)*p)) return inside;
        } else if (p[1] == '-' && p + 2 < close) {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2]) return inside;
            p += 2;
        } else if ((unsigned char)*p == c) {
            return inside;
        }
    }
    return !inside;
}

/* The end of the single-character class that starts at `p`. */
static const char *item_end(bm_matcher *m, const char *p) {
    const char *end = m->pattern_end;
    char first = *p++;
    if (first == '%') {
        if (p >= end) luaL_error(m->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (first == '[') {
        if (p < end && *p == '^') p++;
        /* The first member is taken as it is, so "[]]" is a set of ']'. */
        do {
            if (p >= end) luaL_error(m->L, "malformed pattern (missing ']')");
            char member = *p++;
            if (member == '%' && p < end) p++;
        } while (p >= end || *p != ']');
        return p + 1;
    }
    return p;
}

/* Whether the subject byte at `s` matches the class p..ep. */
static int item_matches(const bm_matcher *m, const char *s, const char *p, const char *ep) {
    if (s >= m->subject_end) return 0;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return 1;
    case '%': return in_class(c, (unsigned char)p[1]);
    case '[': return in_set(c, p, ep - 1);
    default: return (unsigned char)*p == c;
    }
}

static const char *match_from(bm_matcher *m, const char *s, const char *p);

/* '%bxy' at `p` (pointing at x). */
static const char *match_balanced(bm_matcher *m, const char *s, const char *p) {
    if (p + 1 >= m->pattern_end) luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= m->subject_end || *s != *p) return NULL;
    char open = p[0], close = p[1];
    long depth = 1;
    const char *t = s;
    while (++t < m->subject_end) {
        bm_matcher_tick(m, 1);
        if (*t == close) {
            if (--depth == 0) return t + 1;
        } else if (*t == open) {
            depth++;
        }
    }
    return NULL;
}

/* '%1'..'%9' (`digit`): the same bytes as that capture, here. */
static const char *match_backreference(bm_matcher *m, const char *s, int digit) {
    int i = digit - '1';
    if (i < 0 || i >= m->count || m->captures[i].length == BM_CAPTURE_OPEN)
        luaL_error(m->L, "invalid capture index %%%d", i + 1);
    ptrdiff_t length = m->captures[i].length;
    if (length < 0) return NULL; /* a position capture matches no bytes of its own */
    bm_matcher_tick(m, 1 + length / 64);
    if ((size_t)(m->subject_end - s) >= (size_t)length && memcmp(m->captures[i].start, s, (size_t)length) == 0)
        return s + length;
    return NULL;
}

/* Opens capture `kind` (open or position) at `s` and matches the rest. */
static const char *match_capture_open(bm_matcher *m, const char *s, const char *p, ptrdiff_t kind) {
    if (m->count >= BM_PATTERN_MAX_CAPTURES) luaL_error(m->L, "too many captures");
    m->captures[m->count].start = s;
    m->captures[m->count].length = kind;
    m->count++;
    const char *result = match_from(m, s, p);
    if (result == NULL) m->count--;
    return result;
}

/* Closes the innermost open capture at `s` and matches the rest. */
static const char *match_capture_close(bm_matcher *m, const char *s, const char *p) {
    int i = m->count - 1;
    while (i >= 0 && m->captures[i].length != BM_CAPTURE_OPEN) i--;
    if (i < 0) luaL_error(m->L, "invalid pattern capture");
    m->captures[i].length = s - m->captures[i].start;
    const char *result = match_from(m, s, p);
    if (result == NULL) m->captures[i].length = BM_CAPTURE_OPEN;
    return result;
}

/* Item p..ep repeated as often as it matches from `s`, then fewer until the
   rest (after the quantifier) matches. */
static const char *match_longest(bm_matcher *m, const char *s, const char *p, const char *ep) {
    ptrdiff_t n = 0;
    while (item_matches(m, s + n, p, ep)) {
        n++;
        bm_matcher_tick(m, 1);
    }
    for (; n >= 0; n--) {
        const char *result = match_from(m, s + n, ep + 1);
        if (result != NULL) return result;
    }
    return NULL;
}

/* Item p..ep repeated as few times as lets the rest match. */
static const char *match_shortest(bm_matcher *m, const char *s, const char *p, const char *ep) {
    for (;;) {
        const char *result = match_from(m, s, ep + 1);
        if (result != NULL) return result;
        if (!item_matches(m, s, p, ep)) return NULL;
        s++;
    }
}

/*
 * Matches the pattern from `p` at `s`. Each call is one level of nesting
 * (an alternative still open); a pattern that needs more than
 * BM_PATTERN_MAX_DEPTH of them is "too complex". Parts with a single way to
 * go continue in the loop.
 */
static const char *match_from(bm_matcher *m, const char *s, const char *p) {
    if (m->depth_left-- == 0) luaL_error(m->L, "pattern too complex");
    bm_matcher_tick(m, 1);
    const char *end = m->pattern_end;
    while (p != end) {
        switch (*p) {
        case '(':
            if (p + 1 < end && p[1] == ')')
                s = match_capture_open(m, s, p + 2, BM_CAPTURE_POSITION);
            else
                s = match_capture_open(m, s, p + 1, BM_CAPTURE_OPEN);
            goto finished;
        case ')':
            s = match_capture_close(m, s, p + 1);
            goto finished;
        case '$':
            if (p + 1 == end) {
                if (s != m->subject_end) s = NULL;
                goto finished;
            }
            break; /* a '$' elsewhere is an ordinary character */
        case '%':
            if (p + 1 >= end) break; /* item_end reports it */
            if (p[1] == 'b') {
                s = match_balanced(m, s, p + 2);
                if (s == NULL) goto finished;
                p += 4;
                continue;
            }
            if (p[1] == 'f') {
                p += 2;
                if (p >= end || *p != '[') luaL_error(m->L, "missing '[' after '%%f' in pattern");
                const char *ep = item_end(m, p);
                int before = s == m->subject ? 0 : (unsigned char)s[-1];
                int at = s < m->subject_end ? (unsigned char)*s : 0;
                if (!in_set(before, p, ep - 1) && in_set(at, p, ep - 1)) {
                    p = ep;
                    continue;
                }
                s = NULL;
                goto finished;
            }
            if (p[1] >= '0' && p[1] <= '9') {
                s = match_backreference(m, s, p[1]);
                if (s == NULL) goto finished;
                p += 2;
                continue;
            }
            break;
        default:
            break;
        }
        /* A single-character class, maybe quantified. */
        const char *ep = item_end(m, p);
        char quantifier = ep < end ? *ep : '\0';
        if (!item_matches(m, s, p, ep)) {
            if (quantifier == '*' || quantifier == '?' || quantifier == '-') {
                p = ep + 1; /* zero occurrences are fine */
                continue;
            }
            s = NULL;
            goto finished;
        }
        bm_matcher_tick(m, 1);
        switch (quantifier) {
        case '?': {
            const char *result = match_from(m, s + 1, ep + 1);
            if (result != NULL) {
                s = result;
                goto finished;
            }
            p = ep + 1;
            continue;
        }
        case '+':
            s = match_longest(m, s + 1, p, ep);
            goto finished;
        case '*':
            s = match_longest(m, s, p, ep);
            goto finished;
        case '-':
            s = match_shortest(m, s, p, ep);
            goto finished;
        default:
            s++;
            p = ep;
            continue;
        }
    }
finished:
    m->depth_left++;
    return s;
}

const char *bm_matcher_run(bm_matcher *m, const char *s, const char *p) {
    m->count = 0;
    m->depth_left = BM_PATTERN_MAX_DEPTH;
    return match_from(m, s, p);
}

ptrdiff_t bm_matcher_capture(bm_matcher *m, int i, const char *s, const char *e, const char **start) {
    if (i >= m->count) {
        if (i != 0) luaL_error(m->L, "invalid capture index %%%d", i + 1);
        *start = s;
        return e - s;
    }
    const bm_capture *capture = &m->captures[i];
    *start = capture->start;
    if (capture->length == BM_CAPTURE_OPEN) luaL_error(m->L, "unfinished capture");
    if (capture->length == BM_CAPTURE_POSITION)
        lua_pushinteger(m->L, (lua_Integer)(capture->start - m->subject) + 1);
    return capture->length;
}

void bm_matcher_push_capture(bm_matcher *m, int i, const char *s, const char *e) {
    const char *start;
    ptrdiff_t length = bm_matcher_capture(m, i, s, e, &start);
    if (length != BM_CAPTURE_POSITION) lua_pushlstring(m->L, start, (size_t)length);
}

int bm_matcher_push_captures(bm_matcher *m, const char *s, const char *e) {
    int n = (m->count == 0 && s != NULL) ? 1 : m->count;
    luaL_checkstack(m->L, n, "too many captures");
    for (int i = 0; i < n; i++) bm_matcher_push_capture(m, i, s, e);
    return n;
}
