/*
 * host_charges.c: what Swift does for a script, charged to the state's
 * limits (see bm_sandbox.h and bm_limits.h).
 *
 *   - Memory. The allocator never refuses a block while Swift holds the
 *     state (bm_limits.swift_depth > 0), so that no Swift frame is ever
 *     crossed by a longjmp. What a Swift callback pushes for Lua (a
 *     preference's value, bm.entries(), any result) is counted but never
 *     refused there; a script that keeps each result in a slot it allocated
 *     beforehand (a store into an existing slot allocates nothing) could
 *     grow the state without end. So the return from a Swift callback to
 *     Lua checks the limit (one compare in the trampoline), and when the
 *     state is over it, this file decides as Lua's allocator would: an
 *     emergency full collection with the results still alive, then Lua's
 *     memory error if the state is still over the limit (the results are
 *     then garbage). The error is the one any refused block raises, so
 *     `pcall` and Swift name the limit the same way.
 *   - Work. Loops that Swift runs for a script (a walk of the Lua stack,
 *     nodes of a value it converts, names it compares) charge their steps
 *     to the instruction budget and read the deadline, as bm_charge_work
 *     does for C functions, but without raising: Swift throws the limit's
 *     error itself and the trampoline raises it.
 */
#include "sandbox_internal.h"

int bm_sandbox_swift_results_over_limit(lua_State *L, int n) {
    bm_limits *lim = bm_limits_of(L);
    /* Swift still holds the state (a callback nested in Swift code, or a
       finalizer run while Swift allocates), or the trampoline raises an
       error anyway: nothing to decide here. */
    if (n < 0 || lim == NULL || lim->swift_depth != 0) return n;
    if (lim->memory_limit == 0 || lim->used <= lim->memory_limit) return n;
    if (lua_checkstack(L, 1)) {
        /* The allocator refuses this block (the state is over its limit);
           Lua collects, as for any refused block, with the results still on
           the stack, tries again, and raises LUA_ERRMEM when it is still
           refused. When the collection freed enough, the results stand. */
        lua_newuserdatauv(L, 0, 0);
        lua_pop(L, 1);
        return n;
    }
    /* The stack itself could not grow within the limit (Lua collected
       already, trying): the results do not fit. Raise the same error a
       refused block would, from the room this function starts with. */
    lim->memory_limit_hit = 1;
    lim->refused = BM_REFUSED_MEMORY;
    lua_settop(L, 0);
    lua_pushliteral(L, "not enough memory");
    return lua_error(L);
}

int bm_sandbox_charge_swift_work(lua_State *L, long long units, int read_clock) {
    bm_limits *lim = bm_limits_of(L);
    if (lim == NULL || !bm_budget_armed(lim)) return 0;
    if (lim->instruction_limit > 0) lim->instructions_left -= units;
    int which = bm_budget_exhausted(lim, read_clock);
    if (which == 0) return 0;
    /* As bm_raise_limit: the hit is recorded for the error Swift reports,
       and the count hook fires on every instruction from now on, so that a
       script which catches the error cannot keep running for long. */
    if (which == BM_LIMIT_TIME) {
        lim->time_limit_hit = 1;
    } else {
        lim->instruction_limit_hit = 1;
    }
    lua_sethook(L, bm_count_hook, LUA_MASKCOUNT, 1);
    lim->hook_step = 1;
    return which;
}
