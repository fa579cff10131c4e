/*
 * bm_state.h: opening a state (counting allocator, panic and warning
 * functions) and the protected call Swift makes into it (bm_call_at and the
 * message handler's slot).
 */
#ifndef BLOODMAGIC_BM_STATE_H
#define BLOODMAGIC_BM_STATE_H

#include "bm_limits.h"
#include "bm_error_objects.h"

/* The chunk name a position shows: the whole name of a file (`@path`) or a
   literal name (`=name`), where Lua's short_src is cut to LUA_IDSIZE
   characters ("...rojects/shop/config/wiring/20-ui.lua"); short_src for
   code loaded from a string. Needs the "S" fields of `ar`. */
const char *bm_full_source(const lua_Debug *ar);

/* Opens a state with the counting allocator, panic and warning functions. */
lua_State *bm_newstate(bm_limits *limits);

/* Pushes a new table (room for `nrec` fields) whose keys (`mode` "k") or
   values ("v") are weak: the host's weak tables, made as a state opens. */
void bm_push_weak_table(lua_State *L, int nrec, const char *mode);

/*
 * The protected call Swift makes, with its message handler already on the
 * stack at `handler` (an absolute index below the function): calls the
 * function below the top `nargs` values. The outermost call arms the
 * instruction budget of a new run (instructions and time) and disarms it
 * afterwards, and releases the Swift errors Lua still holds
 * (bm_error_objects.h); the memory limit applies while Lua runs.
 * Returns lua_pcall's status; results or the error value are left on top.
 */
/* Inline: the protected call of every lua.call and bm resolution from Swift (LuaHostBenchmarks, BMBenchmarks). */
static inline __attribute__((always_inline)) int bm_call_at(lua_State *L, int nargs, int nresults, int handler) {
    bm_limits *lim = bm_limits_of(L);
    int armed = lim->run_depth == 0 ? bm_arm_run_budget(L) : 0;
    lim->run_depth += 1;
    int saved = lim->swift_depth;
    lim->swift_depth = 0;
    /* Inside a Swift callback: its timed stretch of Swift, if any, pauses. */
    int paused = bm_swift_pauses(lim);
    int status = lua_pcallk(L, nargs, nresults, handler, 0, NULL);
    bm_swift_resumes(lim, paused);
    lim->swift_depth = saved;
    lim->run_depth -= 1;
    if (armed) bm_disarm_budget(L, lim);
    /* Swift errors that Lua still holds do not outlive the run (one load
       and a branch not taken when there are none). */
    if (__builtin_expect(lim->error_causes != 0, 0) && lim->run_depth == 0) bm_error_causes_run_ends(L, lim, status);
    return status;
}

/*
 * Takes out the handler at `base`, just below the results of a call made
 * with bm_call_at(L, nargs, nresults, base) that returned `status`. With no
 * result or one (or an error value), the handler's slot is dropped by
 * copying that value into it, which costs a third of rotating it out.
 */
/* Inline: after every bm_call_at (the lua.call rows). */
static inline void bm_drop_handler(lua_State *L, int base, int nresults, int status) {
    if (nresults == 1 || status != LUA_OK) {
        lua_copy(L, -1, base);
        lua_settop(L, base);
    } else if (nresults == 0) {
        lua_settop(L, base - 1);
    } else {
        lua_rotate(L, base, -1);
        lua_settop(L, -2);
    }
}

/* Puts the message handler `handler` at `base`, below the function and
   arguments above it (the caller made room for one more value). */
/* Inline: before every bm_call_at that needs a handler slot (the lua.call rows). */
static inline void bm_insert_handler(lua_State *L, int base, lua_CFunction handler) {
    lua_pushcclosure(L, handler, 0);
    lua_rotate(L, base, 1);
}

/* The kilobytes the state's heap holds (Lua's own count), and a full
   collection made between runs, outside any run's budget: a tool that runs
   many short steps on a big heap (the checker) collects between them, so
   that a collection's pause is not charged to whichever step it falls in.
   Neither raises: finalizers run in protected mode, their errors warnings. */
int bm_gc_kilobytes(lua_State *L);
void bm_gc_collect(lua_State *L);

#endif /* BLOODMAGIC_BM_STATE_H */
