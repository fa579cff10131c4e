/*
 * error_messages.c: what an error says, caught or not: the message handler
 * Swift calls Lua with, and the explanation the sandbox's pcall, xpcall and
 * coroutine.resume give a caught error (protected_calls.c), so that errors
 * a script catches read as the uncaught ones do (see bm_sandbox.h).
 *
 * Three things can make a caught error say less than it should:
 *
 *   - A block the allocator refuses for a limit (memory, or a big block once
 *     the instruction budget or the deadline is spent) makes Lua raise
 *     LUA_ERRMEM, whose error object is its preallocated "not enough
 *     memory": pcall, xpcall, coroutine.resume and coroutine.close hand that
 *     string to the script. Swift names the limit for an uncaught error; a
 *     caught one gets the same text, prepared when the limits are set
 *     (bm_sandbox_set_limit_messages), so that naming it allocates nothing.
 *     A message handler never runs for LUA_ERRMEM; it can still see the
 *     string when a script (or coroutine.wrap) raises it again, so the
 *     handlers below name it too.
 *   - An error that Lua raises while the `bm` module's own Lua code runs
 *     (a stack overflow, a C function's argument error) carries the
 *     module's position, "[bm]:51:". The nearest script frame's position
 *     replaces it.
 *   - Recursion through bm.resolve that never ends runs Lua out of stack,
 *     "C stack overflow", with no hint of what recursed. The bm.resolve
 *     calls on the stack give the chain of types, each with the script line
 *     that asked for it; when it repeats, the error is the dependency cycle.
 *
 * The second and third need the stack as it was when the error was raised,
 * so they run in message handlers: the one Swift calls Lua with
 * (bm_sandbox_message_handler), and ones the sandbox's pcall and xpcall add;
 * coroutine.resume reads the dead coroutine's stack, which Lua keeps.
 */
#include <string.h>

#include "sandbox_internal.h"

/* Registry keys (their addresses): the limit messages table, the bm.resolve function. */
static const char limit_messages_key = 0;
static const char resolve_step_key = 0;

/* Lua's LUA_ERRMEM message (MEMERRMSG in lstate.h). */
static const char memory_error_text[] = "not enough memory";

/* Steps of a resolution chain a message lists at most. */
#define CHAIN_SHOWN 12
/* Stack levels read for a resolution chain: a recursion through bm.resolve
   runs out of C stack (200 C calls) at about 600 levels. */
#define CHAIN_LEVELS 1024
/* Stack levels read for the nearest script frame above an error. */
#define POSITION_LEVELS 64

/*
 * A walk over a stack for one caught error. lua_getstack(co, n) follows n
 * links from the top, so reading levels 0..n costs about n^2 / 2 steps:
 * each walk here reads a bounded number of levels (CHAIN_LEVELS,
 * POSITION_LEVELS), and `work` counts the links followed, which the error's
 * handler charges to the instruction budget (charge_walk). A script that
 * raises errors naming a stack overflow, deep in a stack, pays for each.
 */
typedef struct stack_walk {
    lua_State *co;   /* the stack read */
    long long work;  /* links followed, and frames inspected */
} stack_walk;

/* lua_getstack on the walk's stack, counted. */
static int walk_to(stack_walk *w, int level, lua_Debug *ar) {
    w->work += (long long)level + 1;
    return lua_getstack(w->co, level, ar);
}

/* Charges a walk's work. Raises nothing: an error raised in a message
   handler would become "error in error handling" and lose the limit's
   message. When the budget is spent, the hook of L is set to run at the
   next instruction, which raises the limit's error. */
static void charge_walk(lua_State *L, const stack_walk *w) {
    bm_limits *lim = bm_limits_of(L);
    if (lim == NULL || lim->instruction_limit <= 0 || w->work <= 0) return;
    lim->instructions_left -= w->work;
    if (lim->instructions_left < 0 && (lua_gethookmask(L) & LUA_MASKCOUNT) && lua_gethookcount(L) > 1)
        lua_sethook(L, bm_count_hook, LUA_MASKCOUNT, 1);
}

/* ------------------------------------------------------------------------ */
/* The message of a refused allocation                                       */
/* ------------------------------------------------------------------------ */

int bm_sandbox_set_limit_messages(lua_State *L) {
    lua_rawsetp(L, LUA_REGISTRYINDEX, &limit_messages_key);
    return 0;
}

/* Replaces the value at `idx` by the message of the limit the allocator last
   refused a block for, when the value is Lua's memory-error string. Pushes
   at most two values; allocates nothing. */
void bm_name_refused_limit(lua_State *L, int idx) {
    size_t length = 0;
    if (lua_type(L, idx) != LUA_TSTRING) return;
    const char *text = lua_tolstring(L, idx, &length);
    if (length != sizeof memory_error_text - 1 || memcmp(text, memory_error_text, length) != 0) return;
    bm_limits *lim = bm_limits_of(L);
    if (lim == NULL || lim->refused == BM_REFUSED_NONE || !lua_checkstack(L, 2)) return;
    idx = lua_absindex(L, idx);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &limit_messages_key) == LUA_TTABLE
        && lua_rawgeti(L, -1, lim->refused) == LUA_TSTRING) {
        lua_replace(L, idx);
    } else {
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* ------------------------------------------------------------------------ */
/* Positions and resolution chains                                           */
/* ------------------------------------------------------------------------ */

int bm_sandbox_mark_resolve_step(lua_State *L) {
    lua_rawsetp(L, LUA_REGISTRYINDEX, &resolve_step_key);
    return 0;
}

/* The length of a leading "chunk:line: " of an internal chunk ("[bm]:51: "),
   or 0. */
static size_t internal_position_length(const char *text, size_t length) {
    size_t mark = strlen(BM_INTERNAL_CHUNK_MARK);
    if (length < mark || memcmp(text, BM_INTERNAL_CHUNK_MARK, mark) != 0) return 0;
    const char *close = memchr(text, ']', length);
    if (close == NULL || (size_t)(close - text) + 2 >= length || close[1] != ':') return 0;
    size_t at = (size_t)(close - text) + 2;
    size_t digits = at;
    while (digits < length && text[digits] >= '0' && text[digits] <= '9') digits++;
    if (digits == at || digits + 1 >= length || text[digits] != ':' || text[digits + 1] != ' ') return 0;
    return digits + 2;
}

/* Whether a message is Lua running out of stack (its C stack, its stack
   size, or a handler that failed for that reason). */
static int is_overflow(const char *text) {
    return strstr(text, "stack overflow") != NULL || strstr(text, "error in error handling") != NULL;
}

/* Whether a message was already explained here (or by the bm module). */
static int is_explained(const char *text) {
    return strstr(text, "dependency cycle: ") != NULL || strstr(text, "(resolving ") != NULL;
}

/* Pushes onto L "chunk:line" of the nearest script frame of the walk's
   stack from `level` up (at most POSITION_LEVELS levels: C functions, frames
   without a line and internal chunks are skipped), or nothing; returns
   whether it pushed. */
static int push_script_position(lua_State *L, stack_walk *w, int level) {
    lua_Debug ar;
    for (int last = level + POSITION_LEVELS; level < last && walk_to(w, level, &ar); level++) {
        w->work += 1;
        if (lua_getinfo(w->co, "S", &ar) && !bm_is_internal_source(ar.source) && lua_getinfo(w->co, "l", &ar)
            && ar.currentline > 0) {
            lua_pushfstring(L, "%s:%d", bm_full_source(&ar), ar.currentline);
            return 1;
        }
    }
    return 0;
}

/* Whether the function of frame `ar` of `co` is bm.resolve. */
static int is_resolve_step(lua_State *L, lua_State *co, lua_Debug *ar) {
    if (!lua_checkstack(co, 2) || !lua_getinfo(co, "f", ar)) return 0;
    if (co != L) lua_xmove(co, L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &resolve_step_key);
    int same = !lua_isnil(L, -1) && lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

/* Pushes onto L local `n` of frame `ar` of `co` when it is a string;
   returns whether it pushed. */
static int push_string_local(lua_State *L, lua_State *co, lua_Debug *ar, int n) {
    if (!lua_checkstack(co, 1) || lua_getlocal(co, ar, n) == NULL) return 0;
    if (co != L) lua_xmove(co, L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) return 1;
    lua_pop(L, 1);
    return 0;
}

/* Pushes onto L the type the bm.resolve frame at `level` resolves: its
   first argument while it runs the cached initializer; once it has handed
   the call to the module's Lua function (the frame below), that function's.
   Pushes nothing (returns 0) for a call that has not started resolving. */
static int push_resolved_type(lua_State *L, stack_walk *w, lua_Debug *ar, int level) {
    lua_Debug inner;
    if (push_string_local(L, w->co, ar, 1)) return 1;
    return level > 0 && walk_to(w, level - 1, &inner) && lua_getinfo(w->co, "S", &inner)
        && bm_is_internal_source(inner.source) && push_string_local(L, w->co, &inner, 1);
}

/*
 * For an overflow message at `idx` of L, raised on `co`: pushes the message
 * that names the chain of bm.resolve steps on co's stack, or nothing when
 * fewer than two are there. Returns whether it pushed.
 *
 * The steps go into a table as "Type" and "Type (file:line)", innermost
 * first. When the innermost ones repeat (the same period at least three
 * times), the message is "file:line: dependency cycle: " and one round;
 * otherwise Lua's message, "(resolving " and the chain.
 */
static int push_overflow_chain(lua_State *L, stack_walk *w, int idx, int first_level) {
    lua_Debug ar;
    int names = lua_gettop(L) + 1, shown = names + 1;
    lua_createtable(L, 64, 0);
    lua_createtable(L, 64, 0);
    int count = 0;
    for (int level = first_level; level < first_level + CHAIN_LEVELS && walk_to(w, level, &ar); level++) {
        w->work += 1;
        if (!lua_checkstack(L, 6) || !is_resolve_step(L, w->co, &ar) || !push_resolved_type(L, w, &ar, level)) continue;
        lua_pushvalue(L, -1);
        lua_rawseti(L, names, ++count);
        if (push_script_position(L, w, level + 1)) {
            lua_pushfstring(L, "%s (%s)", lua_tostring(L, -2), lua_tostring(L, -1));
            lua_replace(L, -3);
            lua_pop(L, 1);
        }
        lua_rawseti(L, shown, count);
    }
    if (count < 2) {
        lua_settop(L, names - 1);
        return 0;
    }
    /* The repetition the innermost steps make (index 1 is the innermost). */
    int period = 0;
    for (int p = 1; p <= count / 3 && period == 0; p++) {
        int run = 0;
        while (run + p < count) {
            lua_rawgeti(L, names, run + 1);
            lua_rawgeti(L, names, run + 1 + p);
            int equal = lua_rawequal(L, -1, -2);
            lua_pop(L, 2);
            if (!equal) break;
            run++;
        }
        if (run >= 2 * p) period = p;
    }
    luaL_Buffer b;
    if (!push_script_position(L, w, first_level)) lua_pushliteral(L, "?");
    lua_pushliteral(L, ": ");
    lua_concat(L, 2);
    int position = lua_gettop(L);
    luaL_buffinit(L, &b);
    lua_pushvalue(L, position);
    luaL_addvalue(&b);
    int from, to;
    if (period > 0) {
        luaL_addstring(&b, "dependency cycle: ");
        from = period + 1; /* one round, outermost first, closed by its first step */
        to = 1;
    } else {
        const char *text = lua_tostring(L, idx);
        size_t skip = 0;
        const char *colon = strstr(text, ": ");
        if (colon != NULL && strstr(text, "stack overflow") > colon) skip = (size_t)(colon - text) + 2;
        luaL_addstring(&b, text + skip);
        luaL_addstring(&b, " (resolving ");
        from = count;
        to = 1;
    }
    int written = 0;
    for (int k = from; k >= to; k--) {
        if (period == 0 && count > CHAIN_SHOWN && k == count - 3) {
            lua_pushfstring(L, " -> … %d more …", count - CHAIN_SHOWN);
            luaL_addvalue(&b);
            k = CHAIN_SHOWN - 3;
        }
        if (written++ > 0) luaL_addstring(&b, " -> ");
        lua_rawgeti(L, shown, k);
        luaL_addvalue(&b);
    }
    if (period == 0) luaL_addstring(&b, ")");
    luaL_pushresult(&b);
    lua_replace(L, names);
    lua_settop(L, names);
    return 1;
}

/* Makes the error value at `idx` of L, raised on `co` (whose stack is read
   from `first_level` up), say what it should: see the top of this file. The
   stack levels read are charged (see stack_walk). */
void bm_explain_error(lua_State *L, lua_State *co, int idx, int first_level) {
    stack_walk walk = {co, 0};
    if (lua_type(L, idx) != LUA_TSTRING) return;
    idx = lua_absindex(L, idx);
    bm_name_refused_limit(L, idx);
    size_t length = 0;
    const char *text = lua_tolstring(L, idx, &length);
    if (!lua_checkstack(L, 8)) return;
    size_t internal = internal_position_length(text, length);
    if (internal > 0) {
        if (push_script_position(L, &walk, first_level)) {
            lua_pushliteral(L, ": ");
            lua_pushlstring(L, text + internal, length - internal);
            lua_concat(L, 3);
        } else {
            lua_pushlstring(L, text + internal, length - internal);
        }
        lua_replace(L, idx);
        text = lua_tolstring(L, idx, &length);
    }
    /* The message's own bytes, searched for the words below (strstr, four
       times at most). */
    walk.work += 4 * (long long)(length / BM_SCAN_BYTES_PER_UNIT);
    if (is_overflow(text) && !is_explained(text) && push_overflow_chain(L, &walk, idx, first_level)) {
        lua_replace(L, idx);
    }
    charge_walk(L, &walk);
}

/* Levels of the stack whose long chunk names a message and its traceback
   get back whole (the traceback shows the first 10 levels, and the last 11
   of a deeper stack, whose names Swift expands from the chunks it loaded). */
#define EXPAND_LEVELS 64

/* Replaces, in the string at `idx`, the cut names (short_src) of the chunks
   running in the first EXPAND_LEVELS levels of L's stack by their whole
   names, so that positions in messages and tracebacks carry the full path
   of a long file name. A chunk that recurses is searched for once. */
static void expand_frame_sources(lua_State *L, int idx, stack_walk *w) {
    lua_Debug ar;
    const char *done = NULL;
    idx = lua_absindex(L, idx);
    for (int level = 0; level < EXPAND_LEVELS && walk_to(w, level, &ar); level++) {
        w->work += 1;
        if (!lua_getinfo(L, "S", &ar) || ar.source == NULL || ar.source == done) continue;
        if (!(ar.source[0] == '@' || ar.source[0] == '=') || ar.srclen <= LUA_IDSIZE) continue;
        done = ar.source;
        size_t length = 0;
        const char *text = lua_tolstring(L, idx, &length);
        if (text == NULL) return;
        w->work += (long long)(length / BM_SCAN_BYTES_PER_UNIT);
        if (strstr(text, ar.short_src) == NULL) continue;
        luaL_gsub(L, text, ar.short_src, ar.source + 1);
        lua_replace(L, idx);
    }
}

/* The entries of package.loaded and of each table in it: what
   luaL_traceback searches for the global name of each function it shows. */
static long long loaded_entries(lua_State *L) {
    long long count = 0;
    if (!lua_checkstack(L, 4)) return 0;
    if (lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE) == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            count++;
            if (lua_type(L, -1) == LUA_TTABLE) {
                lua_pushnil(L);
                while (lua_next(L, -2)) {
                    count++;
                    lua_pop(L, 1);
                }
            }
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return count;
}

/* Adds to the walk what luaL_traceback(L, L, NULL, 1) reads: the depth of
   the stack, which it finds by a binary search of lua_getstack calls (about
   depth * log2(depth) links), and for each level it shows (at most 22) a
   search of the loaded modules for the function's global name. */
static void count_traceback(lua_State *L, stack_walk *w) {
    lua_Debug ar;
    long long depth = 1;
    while (depth < (1 << 28) && walk_to(w, (int)depth, &ar)) depth *= 2; /* within twice the depth */
    long long halvings = 1;
    for (long long d = depth; d > 1; d >>= 1) halvings++;
    w->work += depth * halvings;
    long long modules = loaded_entries(L);
    w->work += modules * (1 + (depth < 22 ? depth : 22));
}

int bm_sandbox_message_handler(lua_State *L) {
    bm_explain_error(L, L, 1, 1);
    stack_walk walk = {L, 0};
    if (bm_is_error_object(L, 1)) {
        /* A Swift error carried through Lua: Swift reads its message and
           its cause from the object itself (bm_error_objects.h). */
        lua_settop(L, 1);
    } else if (lua_tostring(L, 1) == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
            lua_replace(L, 1);
        } else {
            lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
            lua_replace(L, 1);
        }
        lua_settop(L, 1);
    } else if (lua_type(L, 1) == LUA_TSTRING) {
        expand_frame_sources(L, 1, &walk);
    }
    count_traceback(L, &walk);
    luaL_traceback(L, L, NULL, 1);
    expand_frame_sources(L, -1, &walk);
    lua_setfield(L, LUA_REGISTRYINDEX, BM_TRACEBACK_KEY);
    charge_walk(L, &walk);
    return 1;
}
