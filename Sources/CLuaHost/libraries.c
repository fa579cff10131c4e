/*
 * libraries.c: see bm_libraries.h.
 */
#include <string.h>
#include "bm_require.h"
#include "bm_libraries.h"

/* `load` that only accepts text chunks. */
static int bm_load_text_only(lua_State *L) {
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

static int bm_sandbox_denied(lua_State *L) {
    return luaL_error(L, "%s is not available in the sandbox (the host must opt in to unsafe libraries)",
                      lua_tostring(L, lua_upvalueindex(1)));
}

void bm_deny(lua_State *L, int table, const char *field, const char *qualified) {
    table = lua_absindex(L, table);
    lua_pushstring(L, qualified);
    lua_pushcclosure(L, bm_sandbox_denied, 1);
    lua_setfield(L, table, field);
}

int bm_protected_openlibs(lua_State *L) {
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
    /* Lua's own libraries, opened as they are (string without dump). */
    static const struct {
        int flag;
        const char *name;
        lua_CFunction open;
    } whole[] = {
        {BM_LIB_COROUTINE, LUA_COLIBNAME, luaopen_coroutine},
        {BM_LIB_TABLE, LUA_TABLIBNAME, luaopen_table},
        {BM_LIB_STRING, LUA_STRLIBNAME, luaopen_string},
        {BM_LIB_MATH, LUA_MATHLIBNAME, luaopen_math},
        {BM_LIB_UTF8, LUA_UTF8LIBNAME, luaopen_utf8},
    };
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        if (!(flags & whole[i].flag)) continue;
        luaL_requiref(L, whole[i].name, whole[i].open, 1);
        if (whole[i].open == luaopen_string) {
            lua_pushnil(L);
            lua_setfield(L, -2, "dump");
        }
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
