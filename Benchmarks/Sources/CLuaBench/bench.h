/*
 * C baselines for the Lua host benchmarks: the same work done from C, so
 * that Swift's costs can be quoted as ratios measured in the same run.
 */
#ifndef BLOODMAGIC_BENCH_H
#define BLOODMAGIC_BENCH_H

#include <lua.h>
#include <lauxlib.h>

/* A Lua-callable C function that does what the Swift closure does:
   reads an integer argument and returns it plus one. */
static inline int bmbench_c_increment(lua_State *L) {
    lua_Integer n = lua_tointegerx(L, 1, NULL);
    lua_pushinteger(L, n + 1);
    return 1;
}

static inline void bmbench_push_c_increment(lua_State *L) {
    lua_pushcclosure(L, bmbench_c_increment, 0);
}

/* From C: calls the Lua function on top of the stack `count` times with
   lua_pcall (argument i, one result), as a C host would. Returns the sum of
   the results, or -1 on error. The function is left on the stack. */
static inline long long bmbench_c_pcall_loop(lua_State *L, long long count) {
    long long sum = 0;
    for (long long i = 0; i < count; i++) {
        lua_pushvalue(L, -1);
        lua_pushinteger(L, (lua_Integer)i);
        if (lua_pcallk(L, 1, 1, 0, 0, NULL) != LUA_OK) {
            lua_settop(L, -2);
            return -1;
        }
        sum += lua_tointegerx(L, -1, NULL);
        lua_settop(L, -2);
    }
    return sum;
}

#endif
