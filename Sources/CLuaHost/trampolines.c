/*
 * trampolines.c: see bm_trampolines.h.
 */
#include <string.h>
#include "bm_trampolines.h"

int bm_is_internal_source(const char *source) {
    return source != NULL && source[0] == '=' && strncmp(source + 1, BM_INTERNAL_CHUNK_MARK, 3) == 0;
}

int bm_script_frame(lua_State *L, int level, int limit, lua_Debug *ar) {
    for (; level < limit && lua_getstack(L, level, ar); level++) {
        if (lua_getinfo(L, "S", ar) && !bm_is_internal_source(ar->source) && lua_getinfo(L, "l", ar)
            && ar->currentline > 0) {
            return 1;
        }
    }
    return 0;
}

void bm_push_location(lua_State *L, int level, int suffix) {
    lua_Debug ar;
    if (bm_script_frame(L, level, 40, &ar)) {
        lua_pushfstring(L, suffix ? "%s:%d: " : "%s:%d", bm_full_source(&ar), ar.currentline);
    } else {
        lua_pushliteral(L, "");
    }
}

void bm_where(lua_State *L) { bm_push_location(L, 1, 1); }

static int frame_keeper_done(lua_State *L, int status, lua_KContext context) {
    (void)status;
    (void)context;
    return lua_gettop(L);
}

int bm_frame_keeper(lua_State *L) {
    /* LUA_MINSTACK slots are guaranteed to a C function: one is needed. */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, frame_keeper_done);
    return lua_gettop(L);
}

__attribute__((noinline, cold)) int bm_raise_swift_error(lua_State *L, int n) {
    if (n == BM_RAISE_WHERE && lua_type(L, -1) == LUA_TSTRING) {
        bm_where(L);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

__attribute__((noinline, cold)) void bm_reserve_failed(lua_State *L) {
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

int bm_trampoline(lua_State *L) {
    bm_swift_function fn = (bm_swift_function)lua_touserdata(L, lua_upvalueindex(1));
    bm_reserve_swift_stack(L);
    bm_swift_frame frame = bm_enter_swift(L);
    int n = fn(L);
    return bm_leave_swift(L, frame, n);
}

int bm_box_trampoline(lua_State *L) {
    const bm_swift_box *box = (const bm_swift_box *)lua_touserdata(L, lua_upvalueindex(1));
    bm_reserve_swift_stack(L);
    bm_swift_frame frame = bm_enter_swift(L);
    int n = box->entry(L, box->object);
    return bm_leave_swift(L, frame, n);
}

void bm_pushswiftclosure(lua_State *L, bm_swift_function fn, int nup) {
    lua_pushlightuserdata(L, (void *)fn);
    lua_insert(L, -(nup + 1));
    lua_pushcclosure(L, bm_trampoline, nup + 1);
}

int bm_finalizer_trampoline(lua_State *L) {
    bm_swift_function fn = (bm_swift_function)lua_touserdata(L, lua_upvalueindex(1));
    bm_swift_frame frame = bm_enter_swift(L);
    int n = fn(L);
    return bm_leave_swift_finalizer(L, frame, n);
}

void bm_pushswiftfinalizer(lua_State *L, bm_swift_function fn) {
    lua_pushlightuserdata(L, (void *)fn);
    lua_pushcclosure(L, bm_finalizer_trampoline, 1);
}
