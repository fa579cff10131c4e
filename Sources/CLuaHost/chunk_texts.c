/*
 * chunk_texts.c: the text of each chunk a script loaded, by chunk name.
 *
 * Some positions need a chunk's source: the line of a definition table's
 * field, when the call that passes the table starts lines above it. Swift
 * takes that source only from what was loaded, never by opening the file a
 * chunk name names: a script may load any text under any name
 * (`load(code, "@/etc/passwd")`), and opening that name would read files
 * outside the sandbox (`/proc/self/pagemap` without end) and tell the script
 * which line of them holds a word. The host records the files it loads
 * itself (LuaStack.load); this file records what a script had loaded: the
 * text given to `load` (a string chunk) and the file `require` read from the
 * module directory.
 *
 * The texts are kept in a registry table { [chunk name] = text }, as Lua
 * strings, so the memory limit counts them (a `load`ed text is the script's
 * own string, kept alive). Only names starting with '@' (file names, the
 * ones Swift looks up) are recorded. A name loaded again with another text
 * becomes `false`: which of the two a frame runs cannot be told, so such a
 * chunk gets no position from its text. Recording costs a table lookup and,
 * for a name seen before, one comparison of the texts (linear in the text,
 * which the parser has just read whole).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox_internal.h"

void bm_chunk_text_note(lua_State *L, int name, int text) {
    name = lua_absindex(L, name);
    text = lua_absindex(L, text);
    size_t length = 0;
    const char *chunk = lua_tolstring(L, name, &length);
    if (chunk == NULL || length == 0 || chunk[0] != '@' || lua_type(L, text) != LUA_TSTRING) return;
    luaL_checkstack(L, 4, NULL);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, BM_CHUNK_TEXTS_KEY);
    lua_pushvalue(L, name);
    int kind = lua_rawget(L, -2);
    if (kind == LUA_TSTRING && lua_rawequal(L, -1, text)) {
        lua_pop(L, 2); /* the same text again */
        return;
    }
    lua_pop(L, 1);
    if (kind == LUA_TBOOLEAN) {
        lua_pop(L, 1); /* ambiguous already */
        return;
    }
    lua_pushvalue(L, name);
    if (kind == LUA_TNIL) {
        lua_pushvalue(L, text);
    } else {
        lua_pushboolean(L, 0);
    }
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/*
 * The sandbox's `load`: (chunk [, name [, mode [, env]]]) -> what the load
 * in upvalue 1 (the text-only one) returns. A string chunk that compiled is
 * recorded under its name.
 */
static int sandbox_load(lua_State *L) {
    int n = lua_gettop(L);
    if (n > 4) lua_settop(L, n = 4); /* load reads four arguments; `env` absent and nil differ */
    luaL_checkstack(L, n + 1, NULL);
    lua_pushvalue(L, lua_upvalueindex(1));
    for (int i = 1; i <= n; i++) lua_pushvalue(L, i);
    lua_call(L, n, LUA_MULTRET);
    int results = lua_gettop(L) - n;
    if (results >= 1 && lua_type(L, n + 1) == LUA_TFUNCTION && n >= 2 && lua_type(L, 1) == LUA_TSTRING &&
        lua_type(L, 2) == LUA_TSTRING)
        bm_chunk_text_note(L, 2, 1);
    return results;
}

void bm_sandbox_chunk_texts(lua_State *L) {
    if (lua_getfield(L, -1, "load") != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return;
    }
    lua_pushcclosure(L, sandbox_load, 1);
    lua_setfield(L, -2, "load");
}

/* Raises "error loading module 'name' from file 'shown':\n\t<reason>". */
static int module_error(lua_State *L, const char *name, const char *shown, const char *reason) {
    return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, shown, reason);
}

/*
 * Reads the file at `resolved` into a new userdata (pushed) of `size` bytes,
 * which is what stat said before: the file must still be a regular file of
 * that size. Nothing that can raise runs while the file is open.
 */
static size_t read_module_file(lua_State *L, const char *name, const char *resolved, const char *shown) {
    struct stat before;
    if (stat(resolved, &before) != 0 || !S_ISREG(before.st_mode)) module_error(L, name, shown, "cannot open it");
    if (before.st_size > BM_MAX_SCRIPT_FILE_SIZE) module_error(L, name, shown, "it is larger than 64 MiB");
    size_t size = (size_t)before.st_size;
    char *buffer = (char *)lua_newuserdatauv(L, size > 0 ? size : 1, 0);
    /* O_NONBLOCK: a FIFO put there meanwhile cannot make the open wait;
       O_NOFOLLOW: `resolved` is a real path, so a link there now was put
       there since it was checked. */
    int fd = open(resolved, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0) module_error(L, name, shown, "cannot open it");
    struct stat info;
    const char *problem = NULL;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size != before.st_size) {
        problem = "it changed while it was read";
    } else {
        size_t done = 0;
        while (done < size) {
            ssize_t got = read(fd, buffer + done, size - done);
            if (got > 0) {
                done += (size_t)got;
            } else if (got == 0 || errno != EINTR) {
                problem = "cannot read it";
                break;
            }
        }
    }
    close(fd);
    if (problem != NULL) module_error(L, name, shown, problem);
    return size;
}

void bm_sandbox_load_module_file(lua_State *L, const char *name, const char *resolved, const char *shown) {
    lua_pushfstring(L, "@%s", shown);                                   /* the chunk name */
    size_t size = read_module_file(L, name, resolved, shown);            /* the text, in a userdata */
    const char *text = (const char *)lua_touserdata(L, -1);
    /* A first line starting with '#' (a shebang) is skipped, its newline
       kept, as lua's own loader does. */
    size_t skip = 0;
    if (size > 0 && text[0] == '#') {
        while (skip < size && text[skip] != '\n') skip++;
    }
    int status = luaL_loadbufferx(L, text + skip, size - skip, lua_tostring(L, -2), "t");
    if (status != LUA_OK) module_error(L, name, shown, lua_tostring(L, -1));
    lua_pushlstring(L, text, size);                                      /* name, data, fn, text */
    bm_chunk_text_note(L, -4, -1);
    lua_pop(L, 1);
    lua_replace(L, -3);                                                  /* fn, data */
    lua_pop(L, 1);
}
