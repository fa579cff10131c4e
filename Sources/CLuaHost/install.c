/*
 * install.c: puts the sandbox's own library functions in place (see
 * bm_sandbox.h).
 */
#include "sandbox_internal.h"

int bm_sandbox_install(lua_State *L) {
    int flags = (int)lua_tointeger(L, 1);
    lua_settop(L, 0);
    /* Caught errors read as uncaught ones, in every state (protected_calls.c). */
    bm_sandbox_protected_calls(L, (flags & BM_LIB_UNSAFE) ? (BM_LIB_BASE | BM_LIB_COROUTINE) : flags);
    if (flags & BM_LIB_UNSAFE) return 0; /* otherwise the full standard library, as it is */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    if ((flags & BM_LIB_STRING) && lua_getfield(L, 1, LUA_STRLIBNAME) == LUA_TTABLE) {
        bm_sandbox_string_functions(L);
        bm_sandbox_metered_string_functions(L);
    }
    lua_settop(L, 1);
    if ((flags & BM_LIB_TABLE) && lua_getfield(L, 1, LUA_TABLIBNAME) == LUA_TTABLE) bm_sandbox_table_functions(L);
    lua_settop(L, 1);
    if ((flags & BM_LIB_UTF8) && lua_getfield(L, 1, LUA_UTF8LIBNAME) == LUA_TTABLE) bm_sandbox_utf8_functions(L);
    lua_settop(L, 1);
    if (flags & BM_LIB_BASE) {
        lua_pushglobaltable(L);
        bm_sandbox_finalizers(L);
        bm_sandbox_metered_base_functions(L);
        /* After the metered load: the recording load calls it (lua_call). */
        bm_sandbox_chunk_texts(L);
    }
    lua_settop(L, 0);
    return 0;
}
