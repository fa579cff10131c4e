/*
 * string_functions.c: string.find, match, gmatch, gsub and rep for the
 * sandbox. Arguments, results and errors are those of Lua 5.4's string
 * library; the work is charged to the state's budget (see bm_limits.h), so
 * neither a backtracking pattern nor a long repetition outlives its budget.
 */
#include <limits.h>
#include <string.h>

#include "sandbox_internal.h"

/* The longest string string.rep makes, as Lua 5.4 ("resulting string too large"). */
#define BM_MAX_STRING_SIZE ((size_t)INT_MAX)

/* A 1-based start position (negative: from the end), clamped at 1. */
static size_t start_position(lua_Integer position, size_t length) {
    if (position > 0) return (size_t)position;
    if (position == 0) return 1;
    if (position < -(lua_Integer)length) return 1;
    return length + (size_t)position + 1;
}

/* Whether the pattern has none of the characters that make it a pattern. */
static int is_plain(const char *p, size_t lp) {
    static const char specials[] = "^$*+?.([%-";
    for (size_t i = 0; i < lp; i++) {
        if (memchr(specials, p[i], sizeof specials - 1) != NULL) return 0;
    }
    return 1;
}

/* The first occurrence of p (lp bytes) in s (ls bytes), charging the bytes
   scanned and compared. */
static const char *find_plain(lua_State *L, const char *s, size_t ls, const char *p, size_t lp) {
    if (lp == 0) return s;
    if (lp > ls) return NULL;
    const char *last = s + (ls - lp);
    long long work = 0;
    while (s <= last) {
        const char *hit = memchr(s, p[0], (size_t)(last - s) + 1);
        if (hit == NULL) {
            work += (last - s) / 64;
            break;
        }
        work += (hit - s) / 64 + 1 + (long long)(lp / 64);
        if (memcmp(hit + 1, p + 1, lp - 1) == 0) {
            bm_charge_work(L, work, 0);
            return hit;
        }
        s = hit + 1;
        if (work >= BM_WORK_BATCH) {
            bm_charge_work(L, work, 1);
            work = 0;
        }
    }
    bm_charge_work(L, work, 0);
    return NULL;
}

/* string.find (find = 1) and string.match (find = 0). */
static int find_or_match(lua_State *L, int find) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
    if (init > ls) {
        luaL_pushfail(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || is_plain(p, lp))) {
        const char *hit = find_plain(L, s + init, ls - init, p, lp);
        if (hit != NULL) {
            lua_pushinteger(L, (lua_Integer)(hit - s) + 1);
            lua_pushinteger(L, (lua_Integer)(hit - s) + (lua_Integer)lp);
            return 2;
        }
    } else {
        int anchored = lp > 0 && p[0] == '^';
        if (anchored) {
            p++;
            lp--;
        }
        bm_matcher m;
        bm_matcher_init(&m, L, s, ls, p, lp);
        const char *start = s + init;
        do {
            const char *e = bm_matcher_run(&m, start, p);
            if (e != NULL) {
                bm_matcher_settle(&m);
                if (find) {
                    lua_pushinteger(L, (lua_Integer)(start - s) + 1);
                    lua_pushinteger(L, (lua_Integer)(e - s));
                    return bm_matcher_push_captures(&m, NULL, NULL) + 2;
                }
                return bm_matcher_push_captures(&m, start, e);
            }
        } while (start++ < m.subject_end && !anchored);
        bm_matcher_settle(&m);
    }
    luaL_pushfail(L);
    return 1;
}

static int sandbox_find(lua_State *L) { return find_or_match(L, 1); }
static int sandbox_match(lua_State *L) { return find_or_match(L, 0); }

/* The state of a string.gmatch iterator (a userdata upvalue; the subject and
   the pattern are upvalues too, which keeps the pointers valid). Only what
   must outlive a call is here: the matcher (its lua_State, its captures)
   lives on the C stack of each call, because a call can re-enter the same
   iterator while it pushes a capture (the push may run a collection step,
   whose finalizer calls it from a coroutine of its own). */
typedef struct gmatch_state {
    const char *subject;
    size_t subject_length;
    const char *pattern;
    size_t pattern_length;
    const char *next;        /* where the next search starts */
    const char *last_end;    /* end of the last match: no empty match there */
} gmatch_state;

static int gmatch_next(lua_State *L) {
    gmatch_state *g = (gmatch_state *)lua_touserdata(L, lua_upvalueindex(3));
    bm_matcher m;
    bm_matcher_init(&m, L, g->subject, g->subject_length, g->pattern, g->pattern_length);
    for (const char *start = g->next; start <= m.subject_end; start++) {
        const char *e = bm_matcher_run(&m, start, g->pattern);
        if (e != NULL && e != g->last_end) {
            /* The iterator moves on before anything that can re-enter it
               (charging, pushing): a nested call finds the next match. */
            g->next = g->last_end = e;
            bm_matcher_settle(&m);
            return bm_matcher_push_captures(&m, start, e);
        }
    }
    bm_matcher_settle(&m);
    return 0;
}

static int sandbox_gmatch(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
    lua_settop(L, 2);
    gmatch_state *g = (gmatch_state *)lua_newuserdatauv(L, sizeof(gmatch_state), 0);
    if (init > ls) init = ls + 1; /* nothing to find, and no pointer past the end */
    g->subject = s;
    g->subject_length = ls;
    g->pattern = p;
    g->pattern_length = lp;
    g->next = s + init;
    g->last_end = NULL;
    lua_pushcclosure(L, gmatch_next, 3);
    return 1;
}

/* Appends the replacement string (argument 3) for the match s..e, with
   '%0'..'%9' and '%%' expanded. */
static void add_template(bm_matcher *m, luaL_Buffer *b, const char *s, const char *e) {
    lua_State *L = m->L;
    size_t length;
    const char *t = lua_tolstring(L, 3, &length);
    const char *end = t + length;
    const char *percent;
    bm_matcher_tick(m, 1 + (long long)(length / 64));
    while ((percent = memchr(t, '%', (size_t)(end - t))) != NULL) {
        luaL_addlstring(b, t, (size_t)(percent - t));
        percent++;
        char c = percent < end ? *percent : '\0';
        if (c == '%') {
            luaL_addchar(b, '%');
        } else if (c == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (c >= '1' && c <= '9') {
            const char *start;
            ptrdiff_t n = bm_matcher_capture(m, c - '1', s, e, &start);
            if (n == BM_CAPTURE_POSITION)
                luaL_addvalue(b);
            else
                luaL_addlstring(b, start, (size_t)n);
        } else {
            luaL_error(L, "invalid use of '%c' in replacement string", '%');
        }
        t = percent + 1;
    }
    luaL_addlstring(b, t, (size_t)(end - t));
}

/* Appends the replacement for the match s..e; returns whether it differs
   from the match (a function or table giving false or nil keeps it). */
static int add_replacement(bm_matcher *m, luaL_Buffer *b, const char *s, const char *e, int kind) {
    lua_State *L = m->L;
    if (kind == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = bm_matcher_push_captures(m, s, e);
        lua_call(L, n, 1);
    } else if (kind == LUA_TTABLE) {
        bm_matcher_push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    } else {
        add_template(m, b, s, e);
        return 1;
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
        return 0;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(b);
    return 1;
}

static int sandbox_gsub(lua_State *L) {
    size_t ls, lp;
    const char *src = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    int kind = lua_type(L, 3);
    lua_Integer most = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
    luaL_argexpected(L, kind == LUA_TNUMBER || kind == LUA_TSTRING || kind == LUA_TFUNCTION || kind == LUA_TTABLE,
                     3, "string/function/table");
    int anchored = lp > 0 && p[0] == '^';
    if (anchored) {
        p++;
        lp--;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    bm_matcher m;
    bm_matcher_init(&m, L, src, ls, p, lp);
    const char *last_end = NULL;
    lua_Integer n = 0;
    int changed = 0;
    while (n < most) {
        const char *e = bm_matcher_run(&m, src, p);
        if (e != NULL && e != last_end) {
            n++;
            changed = add_replacement(&m, &b, src, e, kind) | changed;
            src = last_end = e;
        } else if (src < m.subject_end) {
            luaL_addchar(&b, *src++);
        } else {
            break;
        }
        if (anchored) break;
    }
    bm_matcher_settle(&m);
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&b, src, (size_t)(m.subject_end - src));
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, n);
    return 2;
}

/* string.rep(s, n [, sep]). Lua's own loops n times even when the result is
   empty; this one returns "" at once then, and charges what it copies. */
static int sandbox_rep(lua_State *L) {
    size_t l, lsep;
    const char *s = luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    const char *sep = luaL_optlstring(L, 3, "", &lsep);
    if (n <= 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    if (l + lsep < l || l + lsep > BM_MAX_STRING_SIZE / (size_t)n)
        return luaL_error(L, "resulting string too large");
    size_t total = (size_t)n * l + (size_t)(n - 1) * lsep;
    if (total == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, total);
    /* The bytes are charged by the allocator (bm_limits.h); each copy counts
       as one step on top. */
    long long work = 0;
    for (lua_Integer i = 0; i < n; i++) {
        memcpy(out, s, l);
        out += l;
        if (lsep > 0 && i + 1 < n) {
            memcpy(out, sep, lsep);
            out += lsep;
        }
        if (++work >= BM_WORK_BATCH) {
            bm_charge_work(L, work, 1);
            work = 0;
        }
    }
    bm_charge_work(L, work, 0);
    luaL_pushresultsize(&b, total);
    return 1;
}

void bm_sandbox_string_functions(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"find", sandbox_find},
        {"match", sandbox_match},
        {"gmatch", sandbox_gmatch},
        {"gsub", sandbox_gsub},
        {"rep", sandbox_rep},
        {NULL, NULL},
    };
    luaL_setfuncs(L, functions, 0);
}
