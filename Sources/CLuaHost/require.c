/*
 * require.c: see bm_require.h.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "bm_libraries.h"
#include "bm_require.h"

/* Whether the byte is one of [A-Za-z0-9_-], the characters of a name segment. */
static int bm_is_name_byte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

int bm_is_module_name(const char *name, size_t length) {
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

int bm_confined_path(const char *directory, const char *relative, char *resolved) {
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

int bm_confined_require(lua_State *L) {
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
static int bm_package_is_frozen(const char *key) {
    static const char *const frozen[] = {"path", "cpath", "searchers", "searchpath", "loadlib", NULL};
    for (int i = 0; frozen[i] != NULL; i++)
        if (strcmp(key, frozen[i]) == 0) return 1;
    return 0;
}

/* __newindex of the sandbox's `package`: (t, k, v). */
static int bm_package_newindex(lua_State *L) {
    const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    if (key != NULL && bm_package_is_frozen(key))
        return luaL_error(L, "package.%s cannot be set in the sandbox (require finds modules in the module directory only)", key);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 0;
}

void bm_confine_package(lua_State *L) {
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
