/*
 * continuations.c: see bm_continuations.h.
 */
#include "bm_continuations.h"

static int continuing_returned(lua_State *L, int status, lua_KContext ctx);

/* Runs the continuation held by the box at `box` with the results above it
   (the call it waited for returned); `*frame` is the Swift frame entered. */
static int run_continuation(lua_State *L, int box, bm_swift_frame *frame) {
    const bm_continuing_function *fn = (const bm_continuing_function *)lua_touserdata(L, lua_upvalueindex(1));
    void *const *slot = (void *const *)lua_touserdata(L, box);
    void *object = slot != NULL ? *slot : NULL;
    int count = lua_gettop(L) - box;
    bm_reserve_swift_stack(L);
    *frame = bm_enter_swift(L);
    return fn->resume(L, object, count);
}

/*
 * What the Swift entry of `frame` answered with `n`: results or an error
 * (left as every trampoline leaves), or a call. A loop, not a recursion:
 * each call that returns runs its continuation here, so a continuation
 * that asks for a million calls uses one C frame. The continuation box of
 * the step before (at `box`, 0 for the first step) and the results it was
 * given are dropped first, so the loop keeps the stack at the size of one
 * step. The call runs with lua_callk: when it yields, this C frame is gone
 * and continuing_returned picks up on resume, then loops here again.
 */
static int continuing_loop(lua_State *L, int box, bm_swift_frame frame, int n) {
    for (;;) {
        if (n != BM_CONTINUE) return bm_leave_swift(L, frame, n);
        int nargs = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
        bm_leave_swift(L, frame, 0); /* the pushes are held to the memory limit (may raise: no Swift frame) */
        int next = lua_gettop(L) - nargs - 1;
        if (box > 0 && next > box) {
            int stale = next - box;
            lua_rotate(L, box, -stale);
            lua_pop(L, stale);
            next = box;
        }
        box = next;
        lua_callk(L, nargs, LUA_MULTRET, (lua_KContext)box, continuing_returned);
        n = run_continuation(L, box, &frame);
    }
}

/* The continuation after a yield inside the call: the coroutine was
   resumed and the call returned; its results, above the box, go to the
   box's continuation. */
static int continuing_returned(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    int box = (int)ctx;
    bm_swift_frame frame;
    int n = run_continuation(L, box, &frame);
    return continuing_loop(L, box, frame, n);
}

int bm_continuing_trampoline(lua_State *L) {
    const bm_continuing_function *fn = (const bm_continuing_function *)lua_touserdata(L, lua_upvalueindex(1));
    bm_reserve_swift_stack(L);
    bm_swift_frame frame = bm_enter_swift(L);
    int n = fn->start(L, fn->object);
    return continuing_loop(L, 0, frame, n);
}

void bm_push_continuing_function(lua_State *L) {
    lua_pushcclosure(L, bm_continuing_trampoline, 1);
}
