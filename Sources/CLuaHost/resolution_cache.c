/*
 * resolution_cache.c: see bm_resolution_cache.h.
 */
#include "bm_resolution_cache.h"

/* The generation as a Lua integer, or LUA_MININTEGER (matching no cache
   entry) once the state has released the registry's box. Upvalue `source`
   is the bm_generation_source. */
static lua_Integer bm_read_generation(lua_State *L, int source) {
    const bm_generation_source *g = (const bm_generation_source *)lua_touserdata(L, lua_upvalueindex(source));
    if (g == NULL || g->registry == NULL || g->read == NULL) return BM_LUA_MININTEGER;
    return (lua_Integer)g->read(g->registry);
}

void bm_set_generation_reader(lua_State *L, bm_generation_fn read) {
    ((bm_generation_source *)lua_touserdata(L, -1))->read = read;
}

int bm_generation_reader(lua_State *L) {
    bm_busy_fn busy = (bm_busy_fn)lua_touserdata(L, lua_upvalueindex(2));
    lua_pushinteger(L, bm_read_generation(L, 1));
    lua_pushboolean(L, busy == NULL || busy());
    lua_pushthread(L);
    return 3;
}

/* The continuations of bm_cached_resolve's two calls: a Lua initializer or
   the Lua bm.resolve may yield (a coroutine scheduler written in Lua), and
   when the coroutine is resumed, its results are already where the calls
   would have left them. Only C and Lua frames are below. */
static int bm_cached_init_done(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    (void)ctx;
    return 1;
}

static int bm_resolve_done(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    (void)ctx;
    return lua_gettop(L);
}

int bm_cached_resolve(lua_State *L) {
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
                    lua_callk(L, 1, 1, 0, bm_cached_init_done);
                    return 1;
                }
                if (lua_rawgeti(L, entry, 3) != LUA_TNIL) return 1;
            }
        }
        lua_settop(L, n);
    }
    lua_pushvalue(L, lua_upvalueindex(3));
    lua_insert(L, 1);
    lua_callk(L, n, LUA_MULTRET, 0, bm_resolve_done);
    return lua_gettop(L);
}

void bm_push_generation_reader(lua_State *L, bm_busy_fn busy) {
    lua_pushlightuserdata(L, (void *)busy);
    lua_pushcclosure(L, bm_generation_reader, 2);
}

void bm_push_cached_resolve(lua_State *L) {
    lua_pushcclosure(L, bm_cached_resolve, 3);
}
