/*
 * protected_helpers.c: see bm_protected.h.
 */
#include "bm_protected.h"

int bm_protected_gettable(lua_State *L) {
    lua_gettable(L, 1);
    return 1;
}

int bm_protected_settable(lua_State *L) {
    lua_settable(L, 1);
    return 0;
}

int bm_protected_tostring(lua_State *L) {
    luaL_tolstring(L, 1, NULL);
    return 1;
}

int bm_protected_pairs_snapshot(lua_State *L) {
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

int bm_protected_shows_itself(lua_State *L) {
    int itself = lua_type(L, 1) != LUA_TTABLE
        || luaL_getmetafield(L, 1, "__tostring") != LUA_TNIL
        || luaL_getmetafield(L, 1, "__name") != LUA_TNIL;
    lua_pushboolean(L, itself);
    return 1;
}

int bm_protected_equal(lua_State *L) {
    lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPEQ));
    return 1;
}
