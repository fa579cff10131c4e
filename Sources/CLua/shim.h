/*
 * shim.h: the C side of BloodMagic's Lua host.
 *
 * 1. Lua's API macros, which Swift cannot import, re-declared as
 *    `static inline` functions or constants with the same names.
 * 2. The per-state limits block (memory, instruction and time budgets), the
 *    counting allocator and the count hook (all in bm_limits.h), and the
 *    panic and warning functions (set up as luaL_newstate does).
 * 3. Trampolines: Swift callbacks never raise. They return a sentinel and the
 *    C trampoline raises the error after the Swift frames are gone, so no
 *    longjmp ever crosses a Swift frame.
 * 4. Small C functions that Swift runs under lua_pcall for the API calls that
 *    may raise (metamethods, library opening).
 * 5. Exposed Swift objects (LuaBridge): the object block, and the C method,
 *    __index, __newindex and __eq entries that check `self` in C.
 * 6. The bm module's resolution cache: bm.resolve in C for cached entries.
 *    4a. Files below a directory: the sandbox's `require`, confined to the
 *    module directory, and the path check partial templates share.
 *
 * Everything here is static inline: the module is a system library and has
 * no object file of its own.
 */
#ifndef BLOODMAGIC_CLUA_SHIM_H
#define BLOODMAGIC_CLUA_SHIM_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------ */
/* 1. Macros re-declared as functions and constants                           */
/* ------------------------------------------------------------------------ */

static const int BM_LUA_REGISTRYINDEX = LUA_REGISTRYINDEX;
#undef LUA_REGISTRYINDEX
static const int LUA_REGISTRYINDEX = BM_LUA_REGISTRYINDEX;

static const int BM_LUA_MULTRET = LUA_MULTRET;
#undef LUA_MULTRET
static const int LUA_MULTRET = BM_LUA_MULTRET;

static const int BM_LUA_NOREF = LUA_NOREF;
static const lua_Integer BM_LUA_MININTEGER = LUA_MININTEGER;

#undef lua_upvalueindex
static inline int lua_upvalueindex(int i) { return LUA_REGISTRYINDEX - i; }

#undef lua_call
static inline void lua_call(lua_State *L, int nargs, int nresults) {
    lua_callk(L, nargs, nresults, 0, NULL);
}

#undef lua_pcall
static inline int lua_pcall(lua_State *L, int nargs, int nresults, int msgh) {
    return lua_pcallk(L, nargs, nresults, msgh, 0, NULL);
}

#undef lua_yield
static inline int lua_yield(lua_State *L, int nresults) {
    return lua_yieldk(L, nresults, 0, NULL);
}

#undef lua_getextraspace
static inline void *lua_getextraspace(lua_State *L) {
    return (void *)((char *)(L) - LUA_EXTRASPACE);
}

#undef lua_tonumber
static inline lua_Number lua_tonumber(lua_State *L, int i) { return lua_tonumberx(L, i, NULL); }

#undef lua_tointeger
static inline lua_Integer lua_tointeger(lua_State *L, int i) { return lua_tointegerx(L, i, NULL); }

#undef lua_pop
static inline void lua_pop(lua_State *L, int n) { lua_settop(L, -(n) - 1); }

#undef lua_newtable
static inline void lua_newtable(lua_State *L) { lua_createtable(L, 0, 0); }

#undef lua_pushcfunction
static inline void lua_pushcfunction(lua_State *L, lua_CFunction f) { lua_pushcclosure(L, f, 0); }

#undef lua_register
static inline void lua_register(lua_State *L, const char *name, lua_CFunction f) {
    lua_pushcfunction(L, f);
    lua_setglobal(L, name);
}

#undef lua_isfunction
static inline int lua_isfunction(lua_State *L, int n) { return lua_type(L, n) == LUA_TFUNCTION; }
#undef lua_istable
static inline int lua_istable(lua_State *L, int n) { return lua_type(L, n) == LUA_TTABLE; }
#undef lua_islightuserdata
static inline int lua_islightuserdata(lua_State *L, int n) { return lua_type(L, n) == LUA_TLIGHTUSERDATA; }
#undef lua_isnil
static inline int lua_isnil(lua_State *L, int n) { return lua_type(L, n) == LUA_TNIL; }
#undef lua_isboolean
static inline int lua_isboolean(lua_State *L, int n) { return lua_type(L, n) == LUA_TBOOLEAN; }
#undef lua_isthread
static inline int lua_isthread(lua_State *L, int n) { return lua_type(L, n) == LUA_TTHREAD; }
#undef lua_isnone
static inline int lua_isnone(lua_State *L, int n) { return lua_type(L, n) == LUA_TNONE; }
#undef lua_isnoneornil
static inline int lua_isnoneornil(lua_State *L, int n) { return lua_type(L, n) <= 0; }

#undef lua_pushglobaltable
static inline void lua_pushglobaltable(lua_State *L) {
    (void)lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
}

#undef lua_tostring
static inline const char *lua_tostring(lua_State *L, int i) { return lua_tolstring(L, i, NULL); }

#undef lua_insert
static inline void lua_insert(lua_State *L, int idx) { lua_rotate(L, idx, 1); }

#undef lua_remove
static inline void lua_remove(lua_State *L, int idx) {
    lua_rotate(L, idx, -1);
    lua_pop(L, 1);
}

#undef lua_replace
static inline void lua_replace(lua_State *L, int idx) {
    lua_copy(L, -1, idx);
    lua_pop(L, 1);
}

#undef lua_newuserdata
static inline void *lua_newuserdata(lua_State *L, size_t size) { return lua_newuserdatauv(L, size, 1); }

#undef lua_getuservalue
static inline int lua_getuservalue(lua_State *L, int idx) { return lua_getiuservalue(L, idx, 1); }

#undef lua_setuservalue
static inline int lua_setuservalue(lua_State *L, int idx) { return lua_setiuservalue(L, idx, 1); }

#undef luaL_checkstring
static inline const char *luaL_checkstring(lua_State *L, int arg) { return luaL_checklstring(L, arg, NULL); }

#undef luaL_optstring
static inline const char *luaL_optstring(lua_State *L, int arg, const char *d) {
    return luaL_optlstring(L, arg, d, NULL);
}

#undef luaL_typename
static inline const char *luaL_typename(lua_State *L, int i) { return lua_typename(L, lua_type(L, i)); }

#undef luaL_getmetatable
static inline int luaL_getmetatable(lua_State *L, const char *name) {
    return lua_getfield(L, LUA_REGISTRYINDEX, name);
}

#undef luaL_loadbuffer
static inline int luaL_loadbuffer(lua_State *L, const char *buff, size_t sz, const char *name) {
    return luaL_loadbufferx(L, buff, sz, name, NULL);
}

#undef luaL_loadfile
static inline int luaL_loadfile(lua_State *L, const char *filename) {
    return luaL_loadfilex(L, filename, NULL);
}

#undef luaL_dostring
static inline int luaL_dostring(lua_State *L, const char *s) {
    return luaL_loadstring(L, s) || lua_pcall(L, 0, LUA_MULTRET, 0);
}

#undef luaL_dofile
static inline int luaL_dofile(lua_State *L, const char *fn) {
    return luaL_loadfile(L, fn) || lua_pcall(L, 0, LUA_MULTRET, 0);
}

#undef luaL_pushfail
static inline void luaL_pushfail(lua_State *L) { lua_pushnil(L); }

/* ------------------------------------------------------------------------ */
/* 2. Limits, allocator, hook, panic and warnings                            */
/* ------------------------------------------------------------------------ */

#include "bm_limits.h"

static inline int bm_panic(lua_State *L) {
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error object is not a string";
    fprintf(stderr, "PANIC: unprotected error in call to Lua API (%s)\n", msg);
    fflush(stderr);
    return 0; /* return to Lua to abort */
}

/* Warning functions, with the same control messages as lauxlib's. */
static inline void bm_warnf_on(void *ud, const char *message, int tocont);
static inline void bm_warnf_cont(void *ud, const char *message, int tocont);

static inline void bm_warnf_off(void *ud, const char *message, int tocont) {
    lua_State *L = (lua_State *)ud;
    if (!tocont && message[0] == '@' && strcmp(message + 1, "on") == 0)
        lua_setwarnf(L, bm_warnf_on, L);
}

static inline void bm_warnf_cont(void *ud, const char *message, int tocont) {
    lua_State *L = (lua_State *)ud;
    fputs(message, stderr);
    if (tocont) {
        lua_setwarnf(L, bm_warnf_cont, L);
    } else {
        fputs("\n", stderr);
        fflush(stderr);
        lua_setwarnf(L, bm_warnf_on, L);
    }
}

static inline void bm_warnf_on(void *ud, const char *message, int tocont) {
    lua_State *L = (lua_State *)ud;
    if (!tocont && message[0] == '@') {
        if (strcmp(message + 1, "off") == 0) lua_setwarnf(L, bm_warnf_off, L);
        return;
    }
    fputs("Lua warning: ", stderr);
    bm_warnf_cont(ud, message, tocont);
}

/* The chunk name a position shows: the whole name of a file (`@path`) or a
   literal name (`=name`), where Lua's short_src is cut to LUA_IDSIZE
   characters ("...rojects/shop/config/wiring/20-ui.lua"); short_src for
   code loaded from a string. Needs the "S" fields of `ar`. */
static inline const char *bm_full_source(const lua_Debug *ar) {
    if (ar->source != NULL && (ar->source[0] == '@' || ar->source[0] == '=')) return ar->source + 1;
    return ar->short_src;
}

/* Opens a state with the counting allocator, panic and warning functions. */
static inline lua_State *bm_newstate(bm_limits *limits) {
    lua_State *L = lua_newstate(bm_counting_alloc, limits);
    if (L == NULL) return NULL;
    bm_set_limits(L, limits);
    lua_atpanic(L, bm_panic);
    lua_setwarnf(L, bm_warnf_off, L); /* warnings off by default, as lua.c */
    return L;
}

/*
 * The protected call Swift makes, with its message handler already on the
 * stack at `handler` (an absolute index below the function): calls the
 * function below the top `nargs` values. The outermost call arms the
 * instruction budget of a new run (instructions and time) and disarms it
 * afterwards; the memory limit applies while Lua runs.
 * Returns lua_pcall's status; results or the error value are left on top.
 */
static inline __attribute__((always_inline)) int bm_call_at(lua_State *L, int nargs, int nresults, int handler) {
    bm_limits *lim = bm_limits_of(L);
    int armed = lim->run_depth == 0 ? bm_arm_run_budget(L) : 0;
    lim->run_depth += 1;
    int saved = lim->swift_depth;
    lim->swift_depth = 0;
    /* Inside a Swift callback: its timed stretch of Swift, if any, pauses. */
    int paused = bm_swift_pauses(lim);
    int status = lua_pcallk(L, nargs, nresults, handler, 0, NULL);
    bm_swift_resumes(lim, paused);
    lim->swift_depth = saved;
    lim->run_depth -= 1;
    if (armed) bm_disarm_budget(L, lim);
    return status;
}

/*
 * Takes out the handler at `base`, just below the results of a call made
 * with bm_call_at(L, nargs, nresults, base) that returned `status`. With no
 * result or one (or an error value), the handler's slot is dropped by
 * copying that value into it, which costs a third of rotating it out.
 */
static inline void bm_drop_handler(lua_State *L, int base, int nresults, int status) {
    if (nresults == 1 || status != LUA_OK) {
        lua_copy(L, -1, base);
        lua_settop(L, base);
    } else if (nresults == 0) {
        lua_settop(L, base - 1);
    } else {
        lua_rotate(L, base, -1);
        lua_settop(L, -2);
    }
}

/* Puts the message handler `handler` at `base`, below the function and
   arguments above it (the caller made room for one more value). */
static inline void bm_insert_handler(lua_State *L, int base, lua_CFunction handler) {
    lua_pushcclosure(L, handler, 0);
    lua_rotate(L, base, 1);
}

/* ------------------------------------------------------------------------ */
/* 3. Trampolines                                                            */
/* ------------------------------------------------------------------------ */

/*
 * A Swift function called from Lua. It returns the number of results it
 * pushed, or one of the sentinels below with the error value on top of the
 * stack. It must never call lua_error (or anything that raises) itself.
 */
typedef int (*bm_swift_function)(lua_State *L);

/** Raise the value on top of the stack as it is. */
static const int BM_RAISE = -1;
/** Raise the string on top of the stack, prefixed with the caller's `file:line:`. */
static const int BM_RAISE_WHERE = -2;

/* Whether a function's source is one of BloodMagic's internal chunks
   (named "=[bm...]"), whose frames never count as an error's position.
   Their tracebacks show the name without '=' (see LuaStack.popError). */
static const char *const BM_INTERNAL_CHUNK_MARK = "[bm";

static inline int bm_is_internal_source(const char *source) {
    return source != NULL && source[0] == '=' && strncmp(source + 1, BM_INTERNAL_CHUNK_MARK, 3) == 0;
}

/* Fills `ar` (source and current line) with the nearest script frame of `L`
   from `level` up to, not including, `limit`: C functions, frames without a
   line and BloodMagic's internal chunks are skipped. Returns whether there is
   one. Every walk for a script's position goes through here. The source is
   asked for first: the current line of an internal frame (most of the frames
   walked, as bm's functions call Swift) is never needed. */
static inline int bm_script_frame(lua_State *L, int level, int limit, lua_Debug *ar) {
    for (; level < limit && lua_getstack(L, level, ar); level++) {
        if (lua_getinfo(L, "S", ar) && !bm_is_internal_source(ar->source) && lua_getinfo(L, "l", ar)
            && ar->currentline > 0) {
            return 1;
        }
    }
    return 0;
}

/* Pushes "chunk:line" of the nearest script frame from `level` up (C
   functions and internal chunks are skipped, so that a Swift function called
   through pcall or from the bm module still reports the script's position).
   With `suffix`, ": " is appended. Pushes "" when there is no such frame. */
static inline void bm_push_location(lua_State *L, int level, int suffix) {
    lua_Debug ar;
    if (bm_script_frame(L, level, 40, &ar)) {
        lua_pushfstring(L, suffix ? "%s:%d: " : "%s:%d", bm_full_source(&ar), ar.currentline);
    } else {
        lua_pushliteral(L, "");
    }
}

static inline void bm_where(lua_State *L) { bm_push_location(L, 1, 1); }

/* Raises the error a Swift entry's sentinel `n` asks for. Out of line and
   cold: every trampoline's hot path is then only the test of `n`. */
__attribute__((noinline, cold, unused)) static int bm_raise_swift_error(lua_State *L, int n) {
    if (n == BM_RAISE_WHERE && lua_type(L, -1) == LUA_TSTRING) {
        bm_where(L);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static inline int bm_finish_swift_call(lua_State *L, int n) {
    if (__builtin_expect(n >= 0, 1)) return n;
    return bm_raise_swift_error(L, n);
}

/*
 * The bookkeeping around every call of a Swift entry from C. Entering marks
 * Swift as in control (the allocator then never refuses a block for the
 * limit) and records `L` as the running thread; leaving restores both and
 * raises, from C, the error a sentinel asks for. Nested calls (a callback
 * that runs Lua that calls Swift again) save and restore like a stack.
 */
typedef struct bm_swift_frame {
    bm_limits *limits;
    lua_State *saved_current;
} bm_swift_frame;

/*
 * Free stack slots every Swift entry point starts with. Lua guarantees a C
 * function only LUA_MINSTACK (20); a script can fill its stack to within
 * that of Lua's limit (table.unpack into a call, deep recursion) before it
 * calls Swift. So the room Swift code may use without asking is checked here,
 * in C, before any Swift frame exists: when the stack cannot grow by this
 * much, the call fails with a Lua error instead. Values whose push needs more
 * (nested tables) check again, from Swift, and fail with a Lua error too.
 */
static const int BM_SWIFT_STACK_RESERVE = 256;

/* Raises, from C, when the stack cannot hold BM_SWIFT_STACK_RESERVE more;
   the message starts with the nearest script position (bm_push_location:
   the bm module's own frames are skipped). LUA_MINSTACK slots are
   guaranteed here, which is all the message needs. */

__attribute__((noinline, cold, unused)) static void bm_reserve_failed(lua_State *L) {
    bm_limits *lim = bm_limits_of(L);
    bm_push_location(L, 1, 1);
    if (lim != NULL && lim->memory_limit_hit) {
        lua_pushliteral(L, "not enough memory");
    } else {
        lua_pushfstring(L, "stack overflow (a call into Swift needs %d free stack slots)", BM_SWIFT_STACK_RESERVE);
    }
    lua_concat(L, 2);
    lua_error(L);
}

/* The hot path is the one test; the failure is out of line. */
static inline __attribute__((always_inline)) void bm_reserve_swift_stack(lua_State *L) {
    if (__builtin_expect(lua_checkstack(L, BM_SWIFT_STACK_RESERVE) != 0, 1)) return;
    bm_reserve_failed(L);
}

static inline __attribute__((always_inline)) bm_swift_frame bm_enter_swift(lua_State *L) {
    bm_limits *lim = bm_limits_of(L);
    bm_swift_frame frame = {lim, lim->current};
    bm_swift_call_begins(lim); /* time in Swift is not the script's (bm_count_hook) */
    lim->swift_depth += 1;
    lim->current = L;
    /* A safe point: references that Swift dropped are released here, on the
       thread that holds the state, rather than at the end of the run. */
    if (bm_release_pending(lim) && lim->drain_releases != NULL) lim->drain_releases(L);
    return frame;
}

/* Decides, when a Swift callback leaves the state over its memory limit,
   whether its results stand: an emergency collection first, then Lua's
   memory error (CLuaSandbox/host_charges.c). Returns `n`, or raises. */
int bm_sandbox_swift_results_over_limit(lua_State *L, int n);

/* `n` is the entry's result: a count of results, or a BM_RAISE sentinel.
   Leaving a finalizer: nothing is returned to Lua, so no memory check. */
static inline __attribute__((always_inline)) int bm_leave_swift_finalizer(lua_State *L, bm_swift_frame frame, int n) {
    bm_limits *lim = frame.limits;
    lim->current = frame.saved_current;
    lim->swift_depth -= 1;
    bm_swift_call_ends(lim);
    return bm_finish_swift_call(L, n);
}

/* As bm_leave_swift_finalizer, and what the entry pushed is held to the
   memory limit (the allocator could not refuse it while Swift ran). The
   hot path is one compare: `used >= limit`, where a limit of 0 (none)
   wraps to the largest size and never compares true. */
static inline __attribute__((always_inline)) int bm_leave_swift(lua_State *L, bm_swift_frame frame, int n) {
    bm_limits *lim = frame.limits;
    lim->current = frame.saved_current;
    lim->swift_depth -= 1;
    bm_swift_call_ends(lim);
    if (__builtin_expect(lim->used > lim->memory_limit - 1, 0)) n = bm_sandbox_swift_results_over_limit(L, n);
    return bm_finish_swift_call(L, n);
}

/*
 * The trampoline for every Swift function visible to Lua. Upvalue 1 is the
 * Swift entry point (a C function pointer held as light userdata); the other
 * upvalues belong to the entry point.
 */
static inline int bm_trampoline(lua_State *L) {
    bm_swift_function fn = (bm_swift_function)lua_touserdata(L, lua_upvalueindex(1));
    bm_reserve_swift_stack(L);
    bm_swift_frame frame = bm_enter_swift(L);
    int n = fn(L);
    return bm_leave_swift(L, frame, n);
}

/*
 * A Swift closure visible to Lua (LuaStack.push(function:)): one userdata
 * upvalue holding the retained Swift box (offset 0, released by the box's
 * __gc, NULL afterwards) and the Swift entry point that runs it, so that a
 * call reads both with a single API call.
 */
typedef int (*bm_swift_box_entry)(lua_State *L, void *box);

typedef struct bm_swift_box {
    void *object;
    bm_swift_box_entry entry;
} bm_swift_box;

/* The trampoline of a boxed Swift closure; upvalue 1 is its bm_swift_box. */
static inline int bm_box_trampoline(lua_State *L) {
    const bm_swift_box *box = (const bm_swift_box *)lua_touserdata(L, lua_upvalueindex(1));
    bm_reserve_swift_stack(L);
    bm_swift_frame frame = bm_enter_swift(L);
    int n = box->entry(L, box->object);
    return bm_leave_swift(L, frame, n);
}

/* Pushes a Swift entry point as a Lua C closure with `nup` extra upvalues
   (already pushed on the stack, which this call pops). */
static inline void bm_pushswiftclosure(lua_State *L, bm_swift_function fn, int nup) {
    lua_pushlightuserdata(L, (void *)fn);
    lua_insert(L, -(nup + 1));
    lua_pushcclosure(L, bm_trampoline, nup + 1);
}

/*
 * The trampoline of a Swift `__gc` metamethod: as bm_trampoline, without the
 * stack reserve (a finalizer pushes nothing, and one that failed for want of
 * stack would never release what it holds).
 */
static inline int bm_finalizer_trampoline(lua_State *L) {
    bm_swift_function fn = (bm_swift_function)lua_touserdata(L, lua_upvalueindex(1));
    bm_swift_frame frame = bm_enter_swift(L);
    int n = fn(L);
    return bm_leave_swift_finalizer(L, frame, n);
}

/* Pushes a Swift entry point as a `__gc` metamethod (see bm_finalizer_trampoline). */
static inline void bm_pushswiftfinalizer(lua_State *L, bm_swift_function fn) {
    lua_pushlightuserdata(L, (void *)fn);
    lua_pushcclosure(L, bm_finalizer_trampoline, 1);
}

/* ------------------------------------------------------------------------ */
/* 4. Protected helpers, run by Swift under lua_pcall                        */
/* ------------------------------------------------------------------------ */

/* Where the message handler (bm_sandbox_message_handler in CLuaSandbox)
   keeps the traceback of the last error, in the registry. */
static const char *const BM_TRACEBACK_KEY = "bloodmagic.traceback";

/* Whether the value at `index` is the C function `handler`: a handler slot
   kept for the length of a scope (LuaStack.withMessageHandler) is trusted
   only while it still holds it, below the function about to be called. */
static inline int bm_is_handler_below(lua_State *L, int index, int function, lua_CFunction handler) {
    return index > 0 && index < function && lua_tocfunction(L, index) == handler;
}

/* t[k] with metamethods: (t, k) -> v */
static inline int bm_protected_gettable(lua_State *L) {
    lua_gettable(L, 1);
    return 1;
}

/* t[k] = v with metamethods: (t, k, v) -> () */
static inline int bm_protected_settable(lua_State *L) {
    lua_settable(L, 1);
    return 0;
}

/* tostring(v) with __tostring and __name: (v) -> s */
static inline int bm_protected_tostring(lua_State *L) {
    luaL_tolstring(L, 1, NULL);
    return 1;
}

/* A table's pairs, copied into a new sequence {k1, v1, k2, v2, ...}: (t) -> s.
   Raw reads only (no metamethod runs), but the copy allocates, so it runs as
   a protected call: a memory error comes back as a status. */
static inline int bm_protected_pairs_snapshot(lua_State *L) {
    lua_Integer n = 0;
    lua_settop(L, 1);
    lua_createtable(L, 0, 0);
    lua_pushnil(L);
    while (lua_next(L, 1) != 0) {
        lua_pushvalue(L, -2);
        lua_rawseti(L, 2, ++n);
        lua_rawseti(L, 2, ++n);
    }
    return 1;
}

/* Whether v should be shown by tostring rather than expanded: not a table,
   or a table whose metatable has __tostring or __name: (v) -> boolean */
static inline int bm_protected_shows_itself(lua_State *L) {
    int itself = lua_type(L, 1) != LUA_TTABLE
        || luaL_getmetafield(L, 1, "__tostring") != LUA_TNIL
        || luaL_getmetafield(L, 1, "__name") != LUA_TNIL;
    lua_pushboolean(L, itself);
    return 1;
}

/* a == b with __eq: (a, b) -> boolean */
static inline int bm_protected_equal(lua_State *L) {
    lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPEQ));
    return 1;
}

/* Library sets for bm_protected_openlibs. */
enum {
    BM_LIB_BASE = 1 << 0,
    BM_LIB_TABLE = 1 << 1,
    BM_LIB_STRING = 1 << 2,
    BM_LIB_MATH = 1 << 3,
    BM_LIB_UTF8 = 1 << 4,
    BM_LIB_COROUTINE = 1 << 5,
    BM_LIB_OS = 1 << 6,       /* safe subset: time, clock, date */
    BM_LIB_PACKAGE = 1 << 7,  /* require for Lua modules only */
    BM_LIB_UNSAFE = 1 << 8    /* the full standard library */
};

/* `load` that only accepts text chunks. */
static inline int bm_load_text_only(lua_State *L) {
    int n = lua_gettop(L);
    if (n < 3) lua_settop(L, 3);
    if (!lua_isnoneornil(L, 3)) {
        const char *mode = lua_tostring(L, 3);
        if (mode == NULL || strchr(mode, 'b') != NULL)
            return luaL_error(L, "load: binary chunks are not allowed in the sandbox");
    }
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static inline int bm_sandbox_denied(lua_State *L) {
    return luaL_error(L, "%s is not available in the sandbox (the host must opt in to unsafe libraries)",
                      lua_tostring(L, lua_upvalueindex(1)));
}

static inline void bm_deny(lua_State *L, int table, const char *field, const char *qualified) {
    table = lua_absindex(L, table);
    lua_pushstring(L, qualified);
    lua_pushcclosure(L, bm_sandbox_denied, 1);
    lua_setfield(L, table, field);
}

/* ------------------------------------------------------------------------ */
/* 4a. Files below a directory: the confined `require`                      */
/* ------------------------------------------------------------------------ */

/* The registry field holding the module directory of a sandboxed state (a
   string, as the host gave it), or nil: then `require` finds no files. */
static const char *const BM_MODULE_DIRECTORY_KEY = "bloodmagic.moduledirectory";

/* The longest module name `require` accepts, in bytes. */
static const size_t BM_MODULE_NAME_MAX = 200;

/* Whether the byte is one of [A-Za-z0-9_-], the characters of a name segment. */
static inline int bm_is_name_byte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* Whether `name` (`length` bytes) is a module name the sandbox resolves:
   segments of [A-Za-z0-9_-], separated by single dots (a dot is a directory,
   as in Lua), none empty, at most BM_MODULE_NAME_MAX bytes in all. So no
   '/', no '..', no absolute path and no embedded NUL can reach a path. */
static inline int bm_is_module_name(const char *name, size_t length) {
    if (length == 0 || length > BM_MODULE_NAME_MAX) return 0;
    size_t segment = 0;
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c == '.') {
            if (segment == 0) return 0;
            segment = 0;
        } else if (bm_is_name_byte(c)) {
            segment++;
        } else {
            return 0;
        }
    }
    return segment > 0;
}

/* What bm_confined_path found. */
static const int BM_PATH_FOUND = 0;        /* a regular file below the directory */
static const int BM_PATH_MISSING = 1;      /* no such file (or not a regular file) */
static const int BM_PATH_OUTSIDE = 2;      /* it exists, but its real path leaves the directory */
static const int BM_PATH_NO_DIRECTORY = 3; /* the directory itself does not resolve */

/*
 * Resolves `relative` (a path the caller built from validated names) below
 * `directory`, following symbolic links (realpath) for both. BM_PATH_FOUND
 * writes the file's real path into `resolved` (PATH_MAX bytes) only when it
 * is a regular file whose real path lies inside the directory's real path,
 * so a link inside the directory that points elsewhere is never used.
 */
static inline int bm_confined_path(const char *directory, const char *relative, char *resolved) {
    char root[PATH_MAX];
    char candidate[PATH_MAX];
    if (directory == NULL || relative == NULL || realpath(directory, root) == NULL) return BM_PATH_NO_DIRECTORY;
    size_t root_length = strlen(root);
    int written = snprintf(candidate, sizeof candidate, "%s/%s", root, relative);
    if (written < 0 || (size_t)written >= sizeof candidate) return BM_PATH_MISSING;
    if (realpath(candidate, resolved) == NULL) return BM_PATH_MISSING;
    /* Inside means below the root: "<root>/..." ("/" itself is a root whose
       children start with "/"). */
    int inside = strncmp(resolved, root, root_length) == 0
        && (resolved[root_length] == '/' || (root_length == 1 && root[0] == '/'));
    if (!inside) return BM_PATH_OUTSIDE;
    struct stat info;
    if (stat(resolved, &info) != 0 || !S_ISREG(info.st_mode)) return BM_PATH_MISSING;
    return BM_PATH_FOUND;
}

/* Loads the file at `resolved` as a text chunk named `@<shown>` and pushes
   the function, or raises with Lua's "error loading module" message; the
   text is kept for positions (CLuaSandbox, chunk_texts.c, defines it). */
void bm_sandbox_load_module_file(lua_State *L, const char *name, const char *resolved, const char *shown);

/*
 * Looks for module `name` in the module directory: <dir>/a/b.lua, then
 * <dir>/a/b/init.lua for "a.b". Pushes the loader and its data (the file
 * name shown in messages) and returns -1; or pushes one string per place it
 * tried ("\n\tno file ...") and returns how many. Never reads a file outside
 * the directory, and says nothing of such a file but that it was refused.
 */
/* Not inlined into bm_confined_require: its path buffers must not stay on
   the C stack while the module runs (and requires others). */
__attribute__((noinline)) static int bm_search_module_directory(lua_State *L, const char *name, size_t length) {
    if (!bm_is_module_name(name, length)) {
        lua_pushliteral(L, "\n\tinvalid module name (names are letters, digits, '_' and '-', "
                           "with dots between directories, as in 'lib.strings')");
        return 1;
    }
    if (lua_getfield(L, LUA_REGISTRYINDEX, BM_MODULE_DIRECTORY_KEY) != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushliteral(L, "\n\tno module directory (the host set none)");
        return 1;
    }
    int directory_index = lua_gettop(L);
    const char *directory = lua_tostring(L, directory_index);
    static const char *const suffixes[] = {".lua", "/init.lua"};
    char relative[BM_MODULE_NAME_MAX + 16];
    char resolved[PATH_MAX];
    int notes = 0;
    for (int i = 0; i < 2; i++) {
        size_t j = 0;
        for (; j < length; j++) relative[j] = name[j] == '.' ? '/' : name[j];
        strcpy(relative + j, suffixes[i]);
        int status = bm_confined_path(directory, relative, resolved);
        if (status == BM_PATH_FOUND) {
            lua_settop(L, directory_index);
            lua_pushfstring(L, "%s/%s", directory, relative);   /* the name shown */
            bm_sandbox_load_module_file(L, name, resolved, lua_tostring(L, -1));
            lua_insert(L, -2);                                   /* loader, shown */
            lua_remove(L, directory_index);
            return -1;
        }
        notes++;
        if (status == BM_PATH_OUTSIDE) {
            lua_pushfstring(L, "\n\trefused '%s/%s': it leads outside the module directory", directory, relative);
        } else if (status == BM_PATH_NO_DIRECTORY) {
            lua_pushfstring(L, "\n\tno module directory '%s'", directory);
            break;
        } else {
            lua_pushfstring(L, "\n\tno file '%s/%s'", directory, relative);
        }
    }
    lua_remove(L, directory_index);
    return notes;
}

/*
 * The sandbox's `require(name)`. As Lua's: package.loaded first, then
 * package.preload, then files; a loader gets (name, data) and its result
 * (or true) is stored in package.loaded; returns the module and the loader
 * data. Unlike Lua's it ignores package.path and package.searchers: files
 * come from the module directory only (bm_search_module_directory).
 */
static inline int bm_confined_require(lua_State *L) {
    size_t length;
    const char *name = luaL_checklstring(L, 1, &length);
    lua_settop(L, 1);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);   /* 2 */
    lua_pushvalue(L, 1);
    if (lua_rawget(L, 2) != LUA_TNIL && lua_toboolean(L, -1)) return 1;
    lua_settop(L, 2);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);  /* 3 */
    lua_pushvalue(L, 1);
    if (lua_rawget(L, 3) == LUA_TFUNCTION) {
        lua_pushliteral(L, ":preload:");                          /* 4, 5 */
    } else {
        lua_settop(L, 3);
        lua_pushfstring(L, "module '%s' not found:\n\tno field package.preload['%s']", name, name);
        int found = bm_search_module_directory(L, name, length);
        if (found >= 0) {
            luaL_where(L, 1);
            lua_insert(L, 4);
            lua_concat(L, found + 2);
            return lua_error(L);
        }
        lua_remove(L, 4);                                           /* loader, data at 4, 5 */
    }
    lua_pushvalue(L, 4);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 5);
    lua_call(L, 2, 1);
    if (!lua_isnil(L, -1)) {
        lua_pushvalue(L, 1);
        lua_insert(L, -2);
        lua_rawset(L, 2);
    } else {
        lua_pop(L, 1);
    }
    lua_pushvalue(L, 1);
    if (lua_rawget(L, 2) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
        lua_pushvalue(L, 1);
        lua_pushvalue(L, -2);
        lua_rawset(L, 2);
    }
    lua_pushvalue(L, 5);
    return 2;
}

/* The package fields the sandbox cannot honour: reads give a function that
   says so (loadlib, searchpath) or nil, and assignments are refused. */
static inline int bm_package_is_frozen(const char *key) {
    static const char *const frozen[] = {"path", "cpath", "searchers", "searchpath", "loadlib", NULL};
    for (int i = 0; frozen[i] != NULL; i++)
        if (strcmp(key, frozen[i]) == 0) return 1;
    return 0;
}

/* __newindex of the sandbox's `package`: (t, k, v). */
static inline int bm_package_newindex(lua_State *L) {
    const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    if (key != NULL && bm_package_is_frozen(key))
        return luaL_error(L, "package.%s cannot be set in the sandbox (require finds modules in the module directory only)", key);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 0;
}

/*
 * Makes the `package` table on top of the stack the sandbox's: path, cpath
 * and searchers removed, loadlib and searchpath answering that they are not
 * available (from a protected metatable's __index, so they cannot be
 * replaced), assignments to any of those refused; and sets the global
 * `require` to bm_confined_require.
 */
static inline void bm_confine_package(lua_State *L) {
    int package = lua_gettop(L);
    static const char *const removed[] = {"path", "cpath", "searchers", "searchpath", "loadlib", NULL};
    for (int i = 0; removed[i] != NULL; i++) {
        lua_pushnil(L);
        lua_setfield(L, package, removed[i]);
    }
    lua_createtable(L, 0, 3);                       /* the metatable */
    lua_createtable(L, 0, 2);                       /* its __index */
    bm_deny(L, -1, "loadlib", "package.loadlib");
    bm_deny(L, -1, "searchpath", "package.searchpath");
    lua_setfield(L, -2, "__index");
    lua_pushcclosure(L, bm_package_newindex, 0);
    lua_setfield(L, -2, "__newindex");
    lua_pushliteral(L, "package");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, package);
    lua_pushcclosure(L, bm_confined_require, 0);
    lua_setglobal(L, "require");
    /* Present (false until the host names a directory): require is confined. */
    lua_pushboolean(L, 0);
    lua_setfield(L, LUA_REGISTRYINDEX, BM_MODULE_DIRECTORY_KEY);
}

/* (flags) -> (); opens the chosen libraries and applies the sandbox. */
static inline int bm_protected_openlibs(lua_State *L) {
    int flags = (int)lua_tointeger(L, 1);
    lua_settop(L, 0);
    if (flags & BM_LIB_UNSAFE) {
        luaL_openlibs(L);
        return 0;
    }
    if (flags & BM_LIB_BASE) {
        luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
        lua_pop(L, 1);
        lua_pushglobaltable(L);
        bm_deny(L, -1, "dofile", "dofile");
        bm_deny(L, -1, "loadfile", "loadfile");
        lua_getfield(L, -1, "load");
        lua_pushcclosure(L, bm_load_text_only, 1);
        lua_setfield(L, -2, "load");
        lua_pop(L, 1);
    }
    if (flags & BM_LIB_PACKAGE) {
        luaL_requiref(L, LUA_LOADLIBNAME, luaopen_package, 1);
        /* require confined to the module directory (which the host sets);
           no search paths, searchers or C loading (see section 7). */
        bm_confine_package(L);
        lua_pop(L, 1);
    }
    {
        /* No io library: a table whose functions say so, so that scripts get
           a clear error rather than "attempt to index a nil value". */
        static const char *const io_names[] = {"open", "popen", "lines", "input", "output",
                                               "read", "write", "close", "tmpfile", "type", NULL};
        lua_createtable(L, 0, 10);
        for (int i = 0; io_names[i] != NULL; i++) {
            lua_pushfstring(L, "io.%s", io_names[i]);
            lua_pushcclosure(L, bm_sandbox_denied, 1);
            lua_setfield(L, -2, io_names[i]);
        }
        lua_setglobal(L, "io");
    }
    if (flags & BM_LIB_COROUTINE) {
        luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1);
        lua_pop(L, 1);
    }
    if (flags & BM_LIB_TABLE) {
        luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
        lua_pop(L, 1);
    }
    if (flags & BM_LIB_STRING) {
        luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
        lua_pushnil(L);
        lua_setfield(L, -2, "dump");
        lua_pop(L, 1);
    }
    if (flags & BM_LIB_MATH) {
        luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
        lua_pop(L, 1);
    }
    if (flags & BM_LIB_UTF8) {
        luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
        lua_pop(L, 1);
    }
    if (flags & BM_LIB_OS) {
        /* A fresh `os` table with only time, clock and date. */
        luaL_requiref(L, LUA_OSLIBNAME, luaopen_os, 0);
        lua_createtable(L, 0, 3);
        lua_getfield(L, -2, "time");
        lua_setfield(L, -2, "time");
        lua_getfield(L, -2, "clock");
        lua_setfield(L, -2, "clock");
        lua_getfield(L, -2, "date");
        lua_setfield(L, -2, "date");
        bm_deny(L, -1, "execute", "os.execute");
        bm_deny(L, -1, "exit", "os.exit");
        bm_deny(L, -1, "getenv", "os.getenv");
        bm_deny(L, -1, "remove", "os.remove");
        bm_deny(L, -1, "rename", "os.rename");
        bm_deny(L, -1, "tmpname", "os.tmpname");
        bm_deny(L, -1, "setlocale", "os.setlocale");
        lua_setglobal(L, LUA_OSLIBNAME);
        lua_pop(L, 1);
        lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
        lua_getglobal(L, LUA_OSLIBNAME);
        lua_setfield(L, -2, LUA_OSLIBNAME);
        lua_pop(L, 1);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* 5. Exposed Swift objects (LuaBridge)                                      */
/* ------------------------------------------------------------------------ */

/*
 * The block of a userdata that stands for an exposed Swift object. `object`
 * is the retained Swift object (NULL once `__gc` released it); `tag` is the
 * per-state registration of its exposed type, so that a metamethod or method
 * can check in C that argument 1 is one of its own objects.
 */
typedef struct bm_exposed_object {
    void *object;
    const void *tag;
} bm_exposed_object;

/*
 * A Swift entry for an exposed member, called directly from C (no extra Lua
 * call frame): the object (NULL when argument 1 is not an object of `type`),
 * the type's tag and the member's descriptor. Same contract as
 * bm_swift_function: a count of results, or a BM_RAISE sentinel.
 */
typedef int (*bm_exposed_entry)(lua_State *L, void *object, const void *type, void *member);

/*
 * What a method closure or an accessor metamethod needs, in one userdata
 * upvalue so that a call reads it with a single API call: the Swift entry,
 * the type tag and (for a method) the member descriptor.
 */
typedef struct bm_exposed_binding {
    bm_exposed_entry entry;
    const void *tag;
    void *member;
    /* A property stored in the object at `offset` as a plain value, which
       __index reads in C without entering Swift: one of the kinds below,
       or BM_STORED_NONE (the getter entry reads it). */
    int stored_kind;
    ptrdiff_t stored_offset;
} bm_exposed_binding;

enum {
    BM_STORED_NONE = 0,
    BM_STORED_INT64 = 1,   /* Int, Int64: a Lua integer */
    BM_STORED_DOUBLE = 2,  /* Double: a Lua float */
    BM_STORED_BOOL = 3     /* Bool: one byte, 0 or 1 */
};

/* The block at `idx` when it is an exposed object of the type `tag`.
   lua_touserdata is NULL for anything but userdata, and lua_rawlen is 0 for
   light userdata, so two calls tell a block of ours from anything else. */
static inline __attribute__((always_inline)) bm_exposed_object *bm_exposed_check(lua_State *L, int idx, const void *tag) {
    bm_exposed_object *block = (bm_exposed_object *)lua_touserdata(L, idx);
    if (block == NULL || lua_rawlen(L, idx) != sizeof(bm_exposed_object)) return NULL;
    return block->tag == tag ? block : NULL;
}

/* Calls a Swift entry with the same bookkeeping as bm_trampoline. */
static inline __attribute__((always_inline)) int bm_exposed_call(lua_State *L, bm_exposed_entry fn, void *object, const void *tag, void *member) {
    bm_reserve_swift_stack(L);
    bm_swift_frame frame = bm_enter_swift(L);
    int n = fn(L, object, tag, member);
    return bm_leave_swift(L, frame, n);
}

/* A method of an exposed type; upvalue 1 is its binding. Argument 1 is `self`. */
static inline int bm_exposed_method(lua_State *L) {
    const bm_exposed_binding *b = (const bm_exposed_binding *)lua_touserdata(L, lua_upvalueindex(1));
    bm_exposed_object *self = bm_exposed_check(L, 1, b->tag);
    return bm_exposed_call(L, b->entry, self ? self->object : NULL, b->tag, b->member);
}

/*
 * __index of an exposed type: (object, key). Upvalue 1 is the members table:
 * name -> method closure, or name -> the property's binding (a full
 * userdata with the Swift getter entry, the type tag and the member), read
 * raw in one lookup. Methods never leave C; a property calls its getter
 * entry directly; any other key reads as nil.
 */
static inline int bm_exposed_index(lua_State *L) {
    /* The VM calls this with exactly (object, key); as few API calls as
       possible: the lookup replaces the key, so the value found is on top
       (and under the getter's result). Called any other way (only possible
       through the debug library), the stack is first made (object, key). */
    if (lua_gettop(L) != 2) lua_settop(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TUSERDATA) return 1;
    const bm_exposed_binding *p = (const bm_exposed_binding *)lua_touserdata(L, -1);
    bm_exposed_object *self = bm_exposed_check(L, 1, p->tag);
    if (p->stored_kind != BM_STORED_NONE && self != NULL && self->object != NULL) {
        /* The object is alive (its userdata is argument 1) and of the type
           the offset was found for, or a subclass, which keeps its layout.
           One push: within the LUA_MINSTACK slots every C call starts with. */
        const char *field = (const char *)self->object + p->stored_offset;
        switch (p->stored_kind) {
        case BM_STORED_INT64: lua_pushinteger(L, (lua_Integer)*(const int64_t *)field); return 1;
        case BM_STORED_DOUBLE: lua_pushnumber(L, (lua_Number)*(const double *)field); return 1;
        case BM_STORED_BOOL: lua_pushboolean(L, *(const unsigned char *)field != 0); return 1;
        default: break;
        }
    }
    return bm_exposed_call(L, p->entry, self ? self->object : NULL, p->tag, p->member);
}

/*
 * __newindex of an exposed type: (object, key, value). Upvalue 1 is the
 * members table, upvalue 2 the binding with the Swift setter entry. The
 * member is NULL for a key that is not a property; the entry reports that.
 */
static inline int bm_exposed_newindex(lua_State *L) {
    lua_settop(L, 3);
    lua_pushvalue(L, 2);
    void *member = NULL;
    if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TUSERDATA)
        member = ((const bm_exposed_binding *)lua_touserdata(L, -1))->member;
    const bm_exposed_binding *b = (const bm_exposed_binding *)lua_touserdata(L, lua_upvalueindex(2));
    lua_settop(L, 3);
    bm_exposed_object *self = bm_exposed_check(L, 1, b->tag);
    return bm_exposed_call(L, b->entry, self ? self->object : NULL, b->tag, member);
}

/* __eq of exposed objects: the same Swift object. */
static inline int bm_exposed_equal(lua_State *L) {
    int same = 0;
    if (lua_type(L, 1) == LUA_TUSERDATA && lua_type(L, 2) == LUA_TUSERDATA
        && lua_rawlen(L, 1) == sizeof(bm_exposed_object) && lua_rawlen(L, 2) == sizeof(bm_exposed_object)) {
        bm_exposed_object *a = (bm_exposed_object *)lua_touserdata(L, 1);
        bm_exposed_object *b = (bm_exposed_object *)lua_touserdata(L, 2);
        same = a->tag != NULL && b->tag != NULL && a->object != NULL && a->object == b->object;
    }
    lua_pushboolean(L, same);
    return 1;
}

/* Pushes a binding userdata (no metatable: it only holds pointers). A
   property's binding with a kind other than BM_STORED_NONE is read by
   __index in C at `offset`. */
static inline void bm_push_exposed_stored_binding(lua_State *L, bm_exposed_entry fn, const void *tag, void *member,
                                                  int kind, ptrdiff_t offset) {
    bm_exposed_binding *b = (bm_exposed_binding *)lua_newuserdatauv(L, sizeof(bm_exposed_binding), 0);
    b->entry = fn;
    b->tag = tag;
    b->member = member;
    b->stored_kind = kind;
    b->stored_offset = offset;
}

static inline void bm_push_exposed_binding(lua_State *L, bm_exposed_entry fn, const void *tag, void *member) {
    bm_push_exposed_stored_binding(L, fn, tag, member, BM_STORED_NONE, 0);
}

/* Pushes a method closure of an exposed type (see bm_exposed_method). */
static inline void bm_push_exposed_method(lua_State *L, bm_exposed_entry fn, const void *tag, void *member) {
    bm_push_exposed_binding(L, fn, tag, member);
    lua_pushcclosure(L, bm_exposed_method, 1);
}

/* Pushes __index of an exposed type whose members table is at `members`
   (each property's binding in that table carries its getter entry). */
static inline void bm_push_exposed_index(lua_State *L, int members) {
    lua_pushvalue(L, members);
    lua_pushcclosure(L, bm_exposed_index, 1);
}

/* Pushes __newindex of an exposed type whose members table is at `members`;
   `fn` is the Swift setter entry, called for every assignment. */
static inline void bm_push_exposed_newindex(lua_State *L, int members, const void *tag, bm_exposed_entry fn) {
    members = lua_absindex(L, members);
    lua_pushvalue(L, members);
    bm_push_exposed_binding(L, fn, tag, NULL);
    lua_pushcclosure(L, bm_exposed_newindex, 2);
}

/* ------------------------------------------------------------------------ */
/* 6. The bm resolution cache (see BMFastResolution.swift)                  */
/* ------------------------------------------------------------------------ */

/*
 * The registry's generation, read by Swift functions called straight from C
 * (no trampoline: they never raise and never touch the Lua stack).
 * `bm_generation_fn` gets the registry (the object a Swift box userdata
 * retains) and returns its generation; `bm_busy_fn` tells whether the
 * calling thread is inside a Swift-tracked resolution.
 */
typedef unsigned long long (*bm_generation_fn)(void *registry);
typedef int (*bm_busy_fn)(void);

/*
 * Where the generation comes from: a Swift box userdata (the shared box
 * metatable's __gc releases `registry` at offset 0 and sets it to NULL)
 * with the reading function after it, so that one API call finds both.
 */
typedef struct bm_generation_source {
    void *registry;
    bm_generation_fn read;
} bm_generation_source;

/* Stores `read` in the generation source on top of the stack (a box that
   Swift pushed with room for it). */
static inline void bm_set_generation_reader(lua_State *L, bm_generation_fn read) {
    ((bm_generation_source *)lua_touserdata(L, -1))->read = read;
}

/* The generation as a Lua integer, or LUA_MININTEGER (matching no cache
   entry) once the state has released the registry's box. Upvalue `source`
   is the bm_generation_source. */
static inline lua_Integer bm_read_generation(lua_State *L, int source) {
    const bm_generation_source *g = (const bm_generation_source *)lua_touserdata(L, lua_upvalueindex(source));
    if (g == NULL || g->registry == NULL || g->read == NULL) return BM_LUA_MININTEGER;
    return (lua_Integer)g->read(g->registry);
}

/*
 * core.generation() -> generation, busy, thread. Upvalues: 1 the generation
 * source, 2 the bm_busy_fn.
 */
static inline int bm_generation_reader(lua_State *L) {
    bm_busy_fn busy = (bm_busy_fn)lua_touserdata(L, lua_upvalueindex(2));
    lua_pushinteger(L, bm_read_generation(L, 1));
    lua_pushboolean(L, busy == NULL || busy());
    lua_pushthread(L);
    return 3;
}

/*
 * bm.resolve(type, options). When there are no options and the cache
 * (upvalue 2: type name -> { generation, init, value }) holds a current entry,
 * calls `init(nil)` and returns its first result, or returns `value`;
 * otherwise hands every argument to the Lua implementation (upvalue 3) and
 * returns what it returns. Upvalue 1 is the generation source.
 * Errors of either function pass through: only C and Lua frames are here.
 */
static inline int bm_cached_resolve(lua_State *L) {
    int n = lua_gettop(L);
    if (n >= 1 && (n < 2 || lua_type(L, 2) == LUA_TNIL) && lua_type(L, 1) == LUA_TSTRING) {
        lua_pushvalue(L, 1);
        if (lua_rawget(L, lua_upvalueindex(2)) == LUA_TTABLE) {
            int entry = lua_gettop(L);
            lua_rawgeti(L, entry, 1);
            int isnum = 0;
            lua_Integer tagged = lua_tointegerx(L, -1, &isnum);
            if (isnum && tagged == bm_read_generation(L, 1)) {
                if (lua_rawgeti(L, entry, 2) == LUA_TFUNCTION) {
                    lua_pushnil(L);
                    lua_callk(L, 1, 1, 0, NULL);
                    return 1;
                }
                if (lua_rawgeti(L, entry, 3) != LUA_TNIL) return 1;
            }
        }
        lua_settop(L, n);
    }
    lua_pushvalue(L, lua_upvalueindex(3));
    lua_insert(L, 1);
    lua_callk(L, n, LUA_MULTRET, 0, NULL);
    return lua_gettop(L);
}

/* Pushes core.generation, popping the generation source from the top. */
static inline void bm_push_generation_reader(lua_State *L, bm_busy_fn busy) {
    lua_pushlightuserdata(L, (void *)busy);
    lua_pushcclosure(L, bm_generation_reader, 2);
}

/* Pushes the C bm.resolve, popping the generation source, the cache table
   and the Lua bm.resolve (pushed in that order). */
static inline void bm_push_cached_resolve(lua_State *L) {
    lua_pushcclosure(L, bm_cached_resolve, 3);
}

#endif /* BLOODMAGIC_CLUA_SHIM_H */
