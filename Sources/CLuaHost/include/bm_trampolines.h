/*
 * bm_trampolines.h: how Lua calls Swift. Swift callbacks never raise: they
 * return a sentinel and the C trampoline raises the error after the Swift
 * frames are gone, so no longjmp ever crosses a Swift frame. Also the
 * script positions errors name (bm_script_frame, bm_push_location).
 */
#ifndef BLOODMAGIC_BM_TRAMPOLINES_H
#define BLOODMAGIC_BM_TRAMPOLINES_H

#include "bm_state.h"

/*
 * A Swift function called from Lua. It returns the number of results it
 * pushed, or one of the sentinels below with the error value on top of the
 * stack. It must never call lua_error (or anything that raises) itself.
 */
typedef int (*bm_swift_function)(lua_State *L);

/** Raise the value on top of the stack as it is. */
static const int BM_RAISE = -1;

/** Raise the string on top of the stack, prefixed with the caller's `file:line:`. */
static const int BM_RAISE_WHERE = -2;

/* Whether a function's source is one of BloodMagic's internal chunks
   (named "=[bm...]"), whose frames never count as an error's position.
   Their tracebacks show the name without '=' (see LuaStack.popError). */
static const char *const BM_INTERNAL_CHUNK_MARK = "[bm";

int bm_is_internal_source(const char *source);

/* Fills `ar` (source and current line) with the nearest script frame of `L`
   from `level` up to, not including, `limit`: C functions, frames without a
   line and BloodMagic's internal chunks are skipped. Returns whether there is
   one. Every walk for a script's position goes through here. The source is
   asked for first: the current line of an internal frame (most of the frames
   walked, as bm's functions call Swift) is never needed. */
int bm_script_frame(lua_State *L, int level, int limit, lua_Debug *ar);

/* Pushes "chunk:line" of the nearest script frame from `level` up (C
   functions and internal chunks are skipped, so that a Swift function called
   through pcall or from the bm module still reports the script's position).
   With `suffix`, ": " is appended. Pushes "" when there is no such frame. */
void bm_push_location(lua_State *L, int level, int suffix);

void bm_where(lua_State *L);

/*
 * A C function that calls its upvalue 1 (a Lua function) with its own
 * arguments and returns all its results. A script's tail call
 * (`return bm.initializer { ... }`) drops the script's frame when the callee
 * is a Lua function, so an error raised there could only name the frame
 * above; Lua 5.4 makes a tail call into a C function an ordinary call, so
 * behind this the caller's frame, and its line, stay on the stack for
 * bm_script_frame. Errors pass through unchanged (no Swift frame is
 * involved); the call may yield (lua_callk).
 */
int bm_frame_keeper(lua_State *L);

/* Raises the error a Swift entry's sentinel `n` asks for. Out of line and
   cold: every trampoline's hot path is then only the test of `n`. */
__attribute__((cold)) int bm_raise_swift_error(lua_State *L, int n);

/* Inline: the one test every trampoline returns through. */
static inline int bm_finish_swift_call(lua_State *L, int n) {
    if (__builtin_expect(n >= 0, 1)) return n;
    return bm_raise_swift_error(L, n);
}

/*
 * The bookkeeping around every call of a Swift entry from C. Entering marks
 * Swift as in control (the allocator then never refuses a block for the
 * limit) and records `L` as the running thread; leaving restores both and
 * raises, from C, the error a sentinel asks for. Nested calls (a callback
 * that runs Lua that calls Swift again) save and restore like a stack.
 */
typedef struct bm_swift_frame {
    bm_limits *limits;
    lua_State *saved_current;
} bm_swift_frame;

/*
 * Free stack slots every Swift entry point starts with. Lua guarantees a C
 * function only LUA_MINSTACK (20); a script can fill its stack to within
 * that of Lua's limit (table.unpack into a call, deep recursion) before it
 * calls Swift. So the room Swift code may use without asking is checked here,
 * in C, before any Swift frame exists: when the stack cannot grow by this
 * much, the call fails with a Lua error instead. Values whose push needs more
 * (nested tables) check again, from Swift, and fail with a Lua error too.
 */
static const int BM_SWIFT_STACK_RESERVE = 256;

/* Raises, from C, when the stack cannot hold BM_SWIFT_STACK_RESERVE more;
   the message starts with the nearest script position (bm_push_location:
   the bm module's own frames are skipped). LUA_MINSTACK slots are
   guaranteed here, which is all the message needs. */
__attribute__((cold)) void bm_reserve_failed(lua_State *L);

/* The hot path is the one test; the failure is out of line. */
/* Inline: one lua_checkstack per call into Swift (callback rows). */
static inline __attribute__((always_inline)) void bm_reserve_swift_stack(lua_State *L) {
    if (__builtin_expect(lua_checkstack(L, BM_SWIFT_STACK_RESERVE) != 0, 1)) return;
    bm_reserve_failed(L);
}

/* Inline: every call into Swift (callback and exposed-object rows). */
static inline __attribute__((always_inline)) bm_swift_frame bm_enter_swift(lua_State *L) {
    bm_limits *lim = bm_limits_of(L);
    bm_swift_frame frame = {lim, lim->current};
    bm_swift_call_begins(lim); /* time in Swift is not the script's (bm_count_hook) */
    lim->swift_depth += 1;
    lim->current = L;
    /* A safe point: references that Swift dropped are released here, on the
       thread that holds the state, rather than at the end of the run. */
    if (bm_release_pending(lim) && lim->drain_releases != NULL) lim->drain_releases(L);
    return frame;
}

/* Decides, when a Swift callback leaves the state over its memory limit,
   whether its results stand: an emergency collection first, then Lua's
   memory error (host_charges.c). Returns `n`, or raises. */
int bm_sandbox_swift_results_over_limit(lua_State *L, int n);

/* `n` is the entry's result: a count of results, or a BM_RAISE sentinel.
   Leaving a finalizer: nothing is returned to Lua, so no memory check. */
/* Inline: every Swift __gc (kept beside bm_leave_swift). */
static inline __attribute__((always_inline)) int bm_leave_swift_finalizer(lua_State *L, bm_swift_frame frame, int n) {
    bm_limits *lim = frame.limits;
    lim->current = frame.saved_current;
    lim->swift_depth -= 1;
    bm_swift_call_ends(lim);
    return bm_finish_swift_call(L, n);
}

/* As bm_leave_swift_finalizer, and what the entry pushed is held to the
   memory limit (the allocator could not refuse it while Swift ran). The
   hot path is one compare: `used >= limit`, where a limit of 0 (none)
   wraps to the largest size and never compares true. */
/* Inline: every return from Swift (callback and exposed-object rows). */
static inline __attribute__((always_inline)) int bm_leave_swift(lua_State *L, bm_swift_frame frame, int n) {
    bm_limits *lim = frame.limits;
    lim->current = frame.saved_current;
    lim->swift_depth -= 1;
    bm_swift_call_ends(lim);
    if (__builtin_expect(lim->used > lim->memory_limit - 1, 0)) n = bm_sandbox_swift_results_over_limit(L, n);
    return bm_finish_swift_call(L, n);
}

/*
 * The trampoline for every Swift function visible to Lua. Upvalue 1 is the
 * Swift entry point (a C function pointer held as light userdata); the other
 * upvalues belong to the entry point.
 */
int bm_trampoline(lua_State *L);

/*
 * A Swift closure visible to Lua (LuaStack.push(function:)): one userdata
 * upvalue holding the retained Swift box (offset 0, released by the box's
 * __gc, NULL afterwards) and the Swift entry point that runs it, so that a
 * call reads both with a single API call.
 */
typedef int (*bm_swift_box_entry)(lua_State *L, void *box);

typedef struct bm_swift_box {
    void *object;
    bm_swift_box_entry entry;
} bm_swift_box;

/* The trampoline of a boxed Swift closure; upvalue 1 is its bm_swift_box. */
int bm_box_trampoline(lua_State *L);

/* Pushes a Swift entry point as a Lua C closure with `nup` extra upvalues
   (already pushed on the stack, which this call pops). */
void bm_pushswiftclosure(lua_State *L, bm_swift_function fn, int nup);

/*
 * The trampoline of a Swift `__gc` metamethod: as bm_trampoline, without the
 * stack reserve (a finalizer pushes nothing, and one that failed for want of
 * stack would never release what it holds).
 */
int bm_finalizer_trampoline(lua_State *L);

/* Pushes a Swift entry point as a `__gc` metamethod (see bm_finalizer_trampoline). */
void bm_pushswiftfinalizer(lua_State *L, bm_swift_function fn);

#endif /* BLOODMAGIC_BM_TRAMPOLINES_H */
