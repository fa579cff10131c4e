/*
 * bm_continuations.h: Swift functions that call Lua back and may be
 * suspended there (LuaContinuingFunction.swift), Swift's lua_callk. Swift
 * never calls Lua itself here: its entry returns BM_CONTINUE with a request
 * ("call this value with these arguments, then run this continuation"), the
 * C function performs the call with lua_callk, and its C continuation calls
 * Swift again with the results, whether the call returned or the coroutine
 * yielded inside it and was resumed. No Swift frame is on the C stack while
 * Lua runs, so the callback may yield and no longjmp crosses Swift.
 */
#ifndef BLOODMAGIC_BM_CONTINUATIONS_H
#define BLOODMAGIC_BM_CONTINUATIONS_H

#include "bm_trampolines.h"

/*
 * A Swift entry's answer (beside a count of results and the BM_RAISE
 * sentinels) when it asks for a call. The top of the stack is then
 * [continuation box, function, argument 1 ... argument n, n]: the box (a
 * Swift box, released by the shared box metatable's __gc) holds what runs
 * next and stays on the stack, owned by Lua, until that has run; n is an
 * integer. The Swift side checks that the slots exist.
 */
static const int BM_CONTINUE = -4;

/* Runs the continuation held by the box `object` with the `count` values on
   top of the stack (the call's results). Returns as a bm_swift_box_entry. */
typedef int (*bm_swift_continuation_entry)(lua_State *L, void *object, int count);

/*
 * A continuing Swift function: a Swift box (`object` at offset 0, released
 * by the shared box metatable) with its entries. `start` runs the body with
 * the call's arguments; `resume` runs a continuation. Both must handle a
 * NULL object (a finalized box) with a BM_RAISE_WHERE message.
 */
typedef struct bm_continuing_function {
    void *object;
    bm_swift_box_entry start;
    bm_swift_continuation_entry resume;
} bm_continuing_function;

/* The C function of every continuing Swift function: it never stops a
   yield, so a refused yield's message looks past it (bm_refuse_yield). */
int bm_continuing_trampoline(lua_State *L);

/* Pushes a continuing Swift function: pops its bm_continuing_function box
   (on top) and makes it the closure's only upvalue. */
void bm_push_continuing_function(lua_State *L);

#endif /* BLOODMAGIC_BM_CONTINUATIONS_H */
