/*
 * C baselines for the Lua host benchmarks: the same work done from C, so
 * that Swift's costs can be quoted as ratios measured in the same run.
 */
#ifndef BLOODMAGIC_BENCH_H
#define BLOODMAGIC_BENCH_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

/* Opens a state with the whole standard library and closes it, as a bare
   C host would: the floor for making a Lua state. Returns 0 on failure. */
static inline int bmbench_new_state_openlibs(void) {
    lua_State *L = luaL_newstate();
    if (L == NULL) return 0;
    luaL_openlibs(L);
    lua_close(L);
    return 1;
}

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

/* A Lua-callable C function like math.abs, as a method: argument 1 is the
   object (unused), argument 2 the integer. */
static inline int bmbench_c_abs_method(lua_State *L) {
    lua_Integer n = lua_tointegerx(L, 2, NULL);
    lua_pushinteger(L, n < 0 ? -n : n);
    return 1;
}

/* Pushes a 16-byte userdata whose metatable's __index is a table holding the
   C method `abs`: the shape of Lua's own C objects (file handles), the
   baseline of a method call on an object. */
static inline void bmbench_push_c_object(lua_State *L) {
    lua_newuserdatauv(L, 16, 0);
    lua_createtable(L, 0, 1);            /* metatable */
    lua_createtable(L, 0, 1);            /* methods */
    lua_pushcclosure(L, bmbench_c_abs_method, 0);
    lua_setfield(L, -2, "abs");
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
}

/* The same C method checking its object as a C library does, with
   luaL_checkudata (its metatable against the one registered under its
   name): what a C method must do before it touches its userdata, and what
   the unchecked one above leaves out. */
static inline int bmbench_c_abs_checked_method(lua_State *L) {
    (void)luaL_checkudata(L, 1, "bmbench.CheckedObject");
    lua_Integer n = luaL_checkinteger(L, 2);
    lua_pushinteger(L, n < 0 ? -n : n);
    return 1;
}

/* Pushes a 16-byte userdata of the registered type "bmbench.CheckedObject"
   whose __index table holds the checked C method `abs`. */
static inline void bmbench_push_checked_c_object(lua_State *L) {
    lua_newuserdatauv(L, 16, 0);
    if (luaL_newmetatable(L, "bmbench.CheckedObject")) {
        lua_createtable(L, 0, 1);
        lua_pushcclosure(L, bmbench_c_abs_checked_method, 0);
        lua_setfield(L, -2, "abs");
        lua_setfield(L, -2, "__index");
    }
    lua_setmetatable(L, -2);
}

/* A count hook that does nothing, set every `step` instructions on `L`:
   the floor of any instruction budget, since Lua 5.4 runs its hook check on
   every instruction as soon as a count hook is set. */
static inline void bmbench_noop_hook(lua_State *L, lua_Debug *ar) {
    (void)L;
    (void)ar;
}

static inline void bmbench_set_noop_count_hook(lua_State *L, int step) {
    lua_sethook(L, bmbench_noop_hook, LUA_MASKCOUNT, step);
}

#endif
