/*
 * CLua.h: liblua5.4 for Swift. Lua's API macros, which Swift cannot import,
 * re-declared as `static inline` functions or constants with the same names
 * (this module is a system library: it has no object file of its own).
 *
 * The host's own C (limits, trampolines, library opening, confined
 * `require`, exposed objects, the resolution cache, the sandbox's
 * functions) is the compiled target CLuaHost.
 */
#ifndef BLOODMAGIC_CLUA_H
#define BLOODMAGIC_CLUA_H

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

#endif /* BLOODMAGIC_CLUA_H */
