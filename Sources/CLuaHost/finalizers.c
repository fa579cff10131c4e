/*
 * finalizers.c: `__gc` metamethods of scripts run under the state's limits.
 *
 * Lua turns debug hooks off on the thread that runs a finalizer, so the
 * count hook never sees a `__gc` that loops, and a finalizer that runs
 * while Swift holds the state (a collection started by Swift's own
 * allocation, or lua_close) is outside the memory limit. The sandbox's
 * `setmetatable` therefore keeps Lua from marking the table itself and
 * marks a sentinel instead: a userdata of ours, tied to the table in an
 * ephemeron table (weak keys), whose own `__gc` is the C function below.
 * When the table becomes garbage so does its sentinel; the sentinel's
 * finalizer looks up the table's `__gc` then, as Lua would, and calls it in
 * a new coroutine, where hooks are on: the count hook (instruction budget and
 * deadline) is set on it, and the allocator enforces the memory limit while
 * it runs. Outside a top-level run the finalizer gets the idle budget (see
 * bm_finalizer_budget_enter), so closing a state never runs user code
 * unbounded.
 *
 * What a script sees is unchanged: `__gc` is read when the metatable is set
 * (a `__gc` added later does nothing), the finalizer gets the table, runs
 * once, in reverse order of marking, at collection or at close, and an error
 * in it becomes a warning ("error in __gc (...)"), as in Lua.
 */
#include <string.h>

#include "sandbox_internal.h"

/* Upvalues of setmetatable and of the sentinel's finalizer. */
enum { ANCHORS = 1, SENTINEL_METATABLE = 2 };

/*
 * The sentinel's __gc: (sentinel) -> (). Upvalue ANCHORS is the ephemeron
 * table { [table] = sentinel }. Runs the table's current `__gc`, if any, in
 * a coroutine under the limits; raises its error for Lua to turn into a
 * warning.
 */
static int run_finalizer(lua_State *L) {
    if (lua_getiuservalue(L, 1, 1) != LUA_TTABLE) return 0; /* 2: the table */
    lua_pushvalue(L, 2);
    lua_pushnil(L);
    lua_rawset(L, lua_upvalueindex(ANCHORS)); /* finalized once: forget it */
    if (!lua_getmetatable(L, 2)) return 0;   /* 3 */
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 3) == LUA_TNIL) return 0; /* 4: the finalizer */

    lua_State *co = lua_newthread(L); /* 5 */
    lua_pushvalue(L, 4);
    lua_pushvalue(L, 2);
    lua_xmove(L, co, 2);

    bm_limits *lim = bm_limits_of(L);
    int idle = bm_finalizer_budget_enter(lim);
    if (bm_budget_armed(lim)) lua_sethook(co, bm_count_hook, LUA_MASKCOUNT, lim->hook_step > 0 ? lim->hook_step : 1000);
    int saved_depth = lim->swift_depth;
    lim->swift_depth = 0; /* the memory limit applies, even inside a Swift callback or lua_close */
    /* The finalizer is a run of its own: a Swift function it calls that
       calls Lua again (a resolver, an initializer) must not start a new run,
       whose end would disarm the budget the rest of the finalizer runs
       under (bm_call_at arms and disarms at run depth 0). */
    lim->run_depth += 1;
    int paused = bm_swift_pauses(lim); /* the finalizer's time is not Swift's */
    int results = 0;
    int status = lua_resume(co, L, 1, &results);
    if (status != LUA_OK) {
        /* Close what the finalizer left open (to-be-closed variables), as
           an error in a finalizer does in Lua. */
#if LUA_VERSION_RELEASE_NUM >= 50406
        int closed = lua_closethread(co, L);
#else
        int closed = lua_resetthread(co);
#endif
        if (status == LUA_YIELD) status = closed;
    }
    bm_swift_resumes(lim, paused);
    lim->run_depth -= 1;
    lim->swift_depth = saved_depth;
    bm_finalizer_budget_leave(lim, idle);
    if (status == LUA_OK) return 0;
    if (status == LUA_YIELD) {
        lua_pushliteral(L, "attempt to yield across a C-call boundary");
    } else {
        lua_xmove(co, L, 1);
        /* Lua's warning shows a string only: a Swift error carried
           through Lua (bm_error_objects.h) is shown by its message. */
        if (bm_push_error_message(L, -1)) lua_replace(L, -2);
    }
    return lua_error(L);
}

/*
 * setmetatable(t, mt) as Lua's, except that a `__gc` in `mt` marks a
 * sentinel rather than `t` (see above). Upvalue ANCHORS is the ephemeron
 * table, SENTINEL_METATABLE the sentinels' metatable.
 */
static int sandbox_setmetatable(lua_State *L) {
    int kind = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, kind == LUA_TNIL || kind == LUA_TTABLE, 2, "nil or table");
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    if (kind == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL) { /* 3: the __gc value */
            lua_pushvalue(L, 1);
            if (lua_rawget(L, lua_upvalueindex(ANCHORS)) == LUA_TNIL) { /* 4 */
                /* Anchor the sentinel before it is marked, so that a failed
                   allocation cannot leave a marked sentinel that nothing
                   holds (it would finalize a live table). */
                lua_newuserdatauv(L, 0, 1); /* 5 */
                lua_pushvalue(L, 1);
                lua_setiuservalue(L, 5, 1);
                lua_pushvalue(L, 1);
                lua_pushvalue(L, 5);
                lua_rawset(L, lua_upvalueindex(ANCHORS));
                lua_pushvalue(L, lua_upvalueindex(SENTINEL_METATABLE));
                lua_setmetatable(L, 5);
            }
            /* Hide __gc while the metatable is set, so that Lua does not mark
               `t`. The key is pushed first: nothing from here on allocates
               or takes a collection step (lua_pushstring may), so no
               finalizer can run while `mt` lacks its __gc (it would see, or
               set, a metatable without one), and the key's slot stays in
               `mt` for the value to go back into. */
            lua_pushliteral(L, "__gc");
            int key = lua_gettop(L);
            lua_pushvalue(L, key);
            lua_pushnil(L);
            lua_rawset(L, 2);
            lua_pushvalue(L, 2);
            lua_setmetatable(L, 1);
            lua_pushvalue(L, key);
            lua_pushvalue(L, 3);
            lua_rawset(L, 2);
            lua_settop(L, 1);
            return 1;
        }
        lua_settop(L, 2);
    }
    lua_setmetatable(L, 1);
    return 1;
}

void bm_sandbox_finalizers(lua_State *L) {
    int globals = lua_absindex(L, -1);
    /* The ephemeron table of sentinels. */
    bm_push_weak_table(L, 0, "k");
    /* The sentinels' metatable: its __gc runs the table's finalizer. */
    lua_createtable(L, 0, 2);
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, run_finalizer, 1);
    lua_setfield(L, -2, "__gc");
    lua_pushliteral(L, "bm.finalizer");
    lua_setfield(L, -2, "__metatable");
    lua_pushcclosure(L, sandbox_setmetatable, 2);
    lua_setfield(L, globals, "setmetatable");
}
