/*
 * bm_coroutines.h: coroutines that wait. Where a script's coroutine may be
 * suspended (every C function of the host that calls Lua back from Lua
 * passes a continuation), what it is told where it may not (a Swift frame
 * below it: Swift never calls Lua with a continuation, so Lua refuses the
 * yield and no longjmp crosses the Swift frames), and the sandbox's
 * coroutine.yield that says which call could not be suspended.
 */
#ifndef BLOODMAGIC_BM_COROUTINES_H
#define BLOODMAGIC_BM_COROUTINES_H

#include "bm_trampolines.h"

/*
 * Raises the error for a yield that cannot happen on `L` (it is not
 * yieldable): outside a coroutine, or with a C or Swift call below the
 * caller that cannot be suspended, which the message names (the nearest
 * Swift entry, else the nearest C function). `what` names the refused
 * operation ("coroutine.yield", an async Swift function's name). Prefixed
 * with the caller's position. Raises from C: call it from a C function
 * that Lua called, never from Swift.
 */
__attribute__((cold)) int bm_refuse_yield(lua_State *L, const char *what);

/* Whether `fn` is one of the C functions through which Lua enters Swift
   (trampolines, exposed-object members). */
int bm_is_swift_entry(lua_CFunction fn);

/*
 * Async Swift functions (LuaAsyncFunction.swift). Such a function, called
 * from a coroutine that can wait, starts its Swift task and suspends the
 * coroutine: it yields BM_WAIT_MARKER and its pending call (a Swift box).
 * Between the coroutine and the host the marker goes up unseen: the
 * sandbox's coroutine.resume and coroutine.wrap, seeing it come back from
 * the coroutine they resumed, yield it in turn (with a continuation that
 * resumes that coroutine again), so a coroutine scheduler written in Lua
 * never sees it. At the top, the coroutine the host runs (bm_host_resume)
 * hands it to Swift, which awaits the task and resumes the coroutine; each
 * level resumes the one below it, and the function's continuation asks
 * Swift for the task's outcome: its results, or its error raised from C
 * (a Swift error object, with the traceback of the coroutine).
 *
 * The whole chain is checked before the task starts: each coroutine from
 * the caller up must be able to yield, and the last must be one the host
 * runs; otherwise the call is an error that says why (outside a coroutine,
 * a C or Swift call that cannot be suspended below it, or a coroutine that
 * synchronous code resumed).
 */

/* The first value a waiting call yields: a light userdata that no script
   can make. */
extern const char bm_wait_marker;
#define BM_WAIT_MARKER ((void *)&bm_wait_marker)

/* Whether the value at `index` is BM_WAIT_MARKER. */
int bm_is_wait_marker(lua_State *L, int index);

/* A `take` entry's answer when the task's outcome is not in yet (the
   coroutine was resumed early): the call yields again. */
static const int BM_WAIT = -3;

/*
 * An async Swift function: a Swift box (the shared box metatable releases
 * `object` at offset 0) with its two entries. `start` reads the arguments,
 * starts the task and pushes the pending call (a box); `take` gets the
 * pending call on top and pushes the results (returns their count), or
 * returns BM_RAISE with the error on top, or BM_WAIT. Both must handle a
 * NULL `object` (the box was finalized) with a BM_RAISE_WHERE message.
 */
typedef struct bm_async_function {
    void *object;
    bm_swift_box_entry start;
    bm_swift_box_entry take;
} bm_async_function;

/* Pushes an async Swift function: pops its bm_async_function box (on top,
   below it nothing) and uses `name` in its messages. */
void bm_push_async_function(lua_State *L, const char *name);

/* Marks the coroutine on top of `L`'s stack (not popped) as run by the
   host: async Swift functions called in it may wait, and no script may
   resume it. The registry table it goes in exists from install on; the
   entry's allocation is one Swift makes (never refused, see bm_limits). */
void bm_mark_host_coroutine(lua_State *L);

/*
 * Resumes the coroutine `co` (with `nargs` values on its stack) as one step
 * of a run the host drives: the run's budget is carried across its steps in
 * `budget` (instructions left and the deadline, fixed when the run began:
 * the time a task waited counts), armed on the main thread and on `co` for
 * the step, and the state's other bookkeeping is as bm_call_at's. Returns
 * lua_resume's status; `*nresults` the values on top of `co`, or after
 * an error 0, and the error value is moved to the top of `L` (the
 * coroutine keeps the rest of its stack, for a traceback).
 */
typedef struct bm_run_budget {
    int started;
    long long instructions_left;
    long long deadline_ns;
} bm_run_budget;

int bm_host_resume(lua_State *L, lua_State *co, int nargs, int *nresults, bm_run_budget *budget);

/* Pushes onto `L` the traceback of the failed coroutine `co` ("stack
   traceback:" and its levels). Swift calls it with the state held
   (swift_depth > 0: its allocations are never refused), so it cannot raise. */
void bm_push_coroutine_traceback(lua_State *L, lua_State *co);

#endif /* BLOODMAGIC_BM_COROUTINES_H */
