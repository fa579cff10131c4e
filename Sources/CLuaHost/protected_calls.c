/*
 * protected_calls.c: the sandbox's pcall, xpcall, coroutine.resume and
 * coroutine.close, whose caught errors read as the uncaught ones do: a
 * refused limit named, a script position instead of the bm module's, a
 * resolution chain (the explanation is error_messages.c's).
 */
#include "sandbox_internal.h"

/* ------------------------------------------------------------------------ */
/* pcall, xpcall, coroutine.resume, coroutine.close                          */
/* ------------------------------------------------------------------------ */

/* The handler pcall adds: (message) -> message, explained. */
static int explaining_handler(lua_State *L) {
    lua_settop(L, 1);
    bm_explain_error(L, L, 1, 1);
    return 1;
}

/* After a protected call: `true` and the results, or `false` and the error
   (the value Lua left, with a refused limit named). `extra` is the number
   of values below the status that are not results. */
static int finish_protected_call(lua_State *L, int status, lua_KContext extra) {
    if (status != LUA_OK && status != LUA_YIELD) {
        bm_name_refused_limit(L, -1);
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

/* pcall(f, ...): as Lua's, with the handler above. */
static int sandbox_pcall(lua_State *L) {
    luaL_checkany(L, 1);
    lua_pushcfunction(L, explaining_handler);
    lua_pushboolean(L, 1);           /* the status, first result on success */
    lua_rotate(L, 1, 2);             /* handler, true, f, ... */
    int status = lua_pcallk(L, lua_gettop(L) - 3, LUA_MULTRET, 1, 1, finish_protected_call);
    return finish_protected_call(L, status, 1);
}

/* The handler xpcall installs: explains the message, then calls the
   script's handler (upvalue 1) with it. */
static int explaining_then_user_handler(lua_State *L) {
    lua_settop(L, 1);
    bm_explain_error(L, L, 1, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 1, 1);
    return 1;
}

/* xpcall(f, handler, ...): as Lua's, with the message explained first. */
static int sandbox_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, explaining_then_user_handler, 1);
    lua_replace(L, 2);               /* f, handler', ... */
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);             /* f, handler', true, f, ... */
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finish_protected_call);
    return finish_protected_call(L, status, 2);
}

/* coroutine.resume(co, ...): Lua's (upvalue 1); a failure's message is
   explained with the coroutine's own stack, which Lua keeps after an error.
   The call consumes its arguments, and `co` may be referenced nowhere else
   (`coroutine.resume(coroutine.create(f))`): a copy stays below the results
   while the explanation reads it, or a collection step (the explanation
   allocates) could free it, and a string allocated next would take its
   place. A coroutine waiting for an async Swift function (it yields
   BM_WAIT_MARKER, see bm_coroutines.h) is not seen by the script: the wait
   goes up, and this resume is made again when the host resumes. */
static int resumed(lua_State *L, int status, lua_KContext ctx);

static int sandbox_resume(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    if (co != NULL && !bm_note_resumer(L, 1)) {
        lua_pushboolean(L, 0);
        lua_pushliteral(L, "cannot resume a coroutine the host runs");
        return 2;
    }
    int n = lua_gettop(L);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_rotate(L, 1, 2);             /* co (kept), resume, co, ... */
    lua_callk(L, n, LUA_MULTRET, 0, resumed);
    return resumed(L, LUA_OK, 0);
}

/* The host resumed this coroutine, which waited for the one at 1. */
static int resume_again(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    (void)ctx;
    lua_settop(L, 1);                /* co; what the host resumed with is not used */
    return sandbox_resume(L);
}

static int resumed(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    (void)ctx;
    lua_State *co = lua_tothread(L, 1);
    if (co != NULL && lua_toboolean(L, 2) != 0) {
        if (lua_gettop(L) >= 4 && bm_is_wait_marker(L, 3)) return bm_pass_wait_up(L, 3, resume_again);
    } else if (co != NULL && lua_gettop(L) >= 3) {
        int costatus = lua_status(co);
        if (costatus != LUA_OK && costatus != LUA_YIELD) bm_explain_error(L, co, 3, 0);
        else bm_name_refused_limit(L, 3);
    }
    return lua_gettop(L) - 1;
}

/* coroutine.close(co): Lua's (upvalue 1), with a refused limit named; the
   host's coroutines are not the script's to close. */
static int sandbox_close(lua_State *L) {
    if (lua_type(L, 1) == LUA_TTHREAD && bm_is_host_coroutine(L, 1))
        return luaL_error(L, "cannot close a coroutine the host runs");
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    if (lua_toboolean(L, 1) == 0 && lua_gettop(L) >= 2) bm_name_refused_limit(L, 2);
    return lua_gettop(L);
}

/* Replaces t[name] (t at `table`) by `fn`, with the old value as its upvalue. */
static void wrap_field(lua_State *L, int table, const char *name, lua_CFunction fn) {
    if (lua_getfield(L, table, name) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return;
    }
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, table, name);
}

void bm_sandbox_protected_calls(lua_State *L, int flags) {
    bm_sandbox_resumers(L);
    if (flags & BM_LIB_BASE) {
        lua_pushglobaltable(L);
        lua_pushcfunction(L, sandbox_pcall);
        lua_setfield(L, -2, "pcall");
        lua_pushcfunction(L, sandbox_xpcall);
        lua_setfield(L, -2, "xpcall");
        lua_pop(L, 1);
    }
    if (flags & BM_LIB_COROUTINE) {
        luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
        if (lua_getfield(L, -1, LUA_COLIBNAME) == LUA_TTABLE) {
            int co = lua_gettop(L);
            wrap_field(L, co, "resume", sandbox_resume);
            wrap_field(L, co, "close", sandbox_close);
            bm_sandbox_coroutines(L, co);
        }
        lua_pop(L, 2);
    }
}
