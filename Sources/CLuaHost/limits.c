/*
 * limits.c: see bm_limits.h.
 */
#include <stdlib.h>
#include <string.h>

#include "bm_limits.h"

void *bm_counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    bm_limits *lim = (bm_limits *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        lim->used -= old;
        return NULL;
    }
    if (nsize > old && lim->swift_depth == 0) {
        if (lim->memory_limit != 0 && lim->used - old + nsize > lim->memory_limit) {
            lim->memory_limit_hit = 1;
            lim->refused = BM_REFUSED_MEMORY;
            return NULL; /* Lua raises LUA_ERRMEM; no Swift frame is on the way */
        }
        size_t growth = nsize - old;
        if (lim->instruction_limit > 0) lim->instructions_left -= (long long)(growth / BM_BYTES_PER_INSTRUCTION);
        /* Only big blocks are refused for a spent budget: the count hook
           stops a run soon enough, and the small blocks that raising an
           error needs (its message, a traceback) must not fail. */
        if (growth >= BM_BIG_BLOCK) {
            if (lim->instruction_limit > 0 && lim->instructions_left < 0) {
                lim->instruction_limit_hit = 1;
                lim->refused = BM_REFUSED_INSTRUCTIONS;
                return NULL;
            }
            if (lim->deadline_ns != 0 && bm_now_ns() >= lim->deadline_ns) {
                lim->time_limit_hit = 1;
                lim->refused = BM_REFUSED_TIME;
                return NULL;
            }
            if (bm_budget_armed(lim)) bm_hook_big_block(lim, growth);
        }
    }
    void *p = realloc(ptr, nsize);
    if (p == NULL) {
        if (nsize <= old) return ptr; /* Lua assumes shrinking never fails */
        if (lim->swift_depth > 0) {
            fputs("bloodmagic: out of memory while Swift holds the Lua state\n", stderr);
            abort();
        }
        lim->refused = BM_REFUSED_NONE;
        return NULL;
    }
    lim->used = lim->used - old + nsize;
    if (lim->used > lim->peak) lim->peak = lim->used;
    return p;
}

void bm_count_hook(lua_State *L, lua_Debug *ar) {
    bm_limits *lim = bm_limits_of(L);
    if (lim == NULL) return;
    /* This thread's own step: a coroutine keeps the step it was given (or
       inherited) while the main thread's is set at each run. */
    int count = lua_gethookcount(L);
    if (lim->instruction_limit > 0) lim->instructions_left -= count;
    /* The interval's time, less the time in Swift callbacks, against the
       units charged in it (instructions, and what the allocator and
       bm_charge_work added). A multiplication and a comparison; the slow
       path is out of line. */
    unsigned long long now = bm_ticks();
    long long units = lim->instruction_limit > 0 ? lim->hook_left - lim->instructions_left : count;
    unsigned long long in_swift = lim->swift_ticks - lim->hook_swift_ticks;
    unsigned long long elapsed = now - lim->hook_ticks;
    unsigned long long allowed;
    if (count < lim->hook_step || units <= 0
        || (!__builtin_mul_overflow((unsigned long long)units, lim->hook_slow_ticks, &allowed)
            && elapsed > in_swift && elapsed - in_swift > allowed)) {
        bm_hook_slow_interval(L, lim, now, units, count);
    }
    lim->hook_ticks = now;
    lim->hook_left = lim->instructions_left;
    lim->hook_swift_ticks = lim->swift_ticks;
    int which = bm_budget_exhausted(lim, 1);
    if (which == 0) return;
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0) {
        char where[LUA_IDSIZE + 32];
        snprintf(where, sizeof where, "%s:%d: ", ar->short_src, ar->currentline);
        bm_raise_limit(L, lim, which, where);
    } else {
        bm_raise_limit(L, lim, which, "");
    }
}

void bm_close_state(lua_State *L) {
    bm_limits *lim = bm_limits_of(L);
    lim->swift_depth = 1;
    lim->run_depth = 0;
    lim->idle_budget_started = 0;
    lim->closing = 1;
    bm_disarm_budget(L, lim);
    lua_close(L);
}

int bm_finalizer_budget_enter(bm_limits *lim) {
    if (bm_budget_armed(lim)) return 0;
    long long instructions = lim->configured_instruction_limit;
    long long time_ns = lim->configured_time_limit_ns;
    if (lim->closing && instructions <= 0 && time_ns <= 0) time_ns = BM_CLOSE_DEFAULT_TIME_NS;
    if (instructions <= 0 && time_ns <= 0) return 0;
    if (!lim->idle_budget_started) {
        lim->idle_budget_started = 1;
        lim->idle_instructions_left = instructions;
        lim->idle_deadline_ns = time_ns > 0 ? bm_now_ns() + time_ns : 0;
    }
    lim->instruction_limit = instructions > 0 ? instructions : 0;
    lim->instructions_left = lim->idle_instructions_left;
    lim->time_limit_ns = time_ns;
    lim->deadline_ns = lim->idle_deadline_ns;
    if (lim->hook_step <= 0) lim->hook_step = 1000;
    lim->hook_ticks = bm_ticks();
    lim->hook_left = lim->instructions_left;
    lim->cpu_mark_ns = 0;
    lim->swift_timing = 0;
    lim->hook_swift_ticks = lim->swift_ticks;
    return 1;
}

void bm_finalizer_budget_leave(bm_limits *lim, int armed) {
    if (!armed) return;
    lim->idle_instructions_left = lim->instructions_left;
    lim->instruction_limit = 0;
    lim->deadline_ns = 0;
    lim->cpu_mark_ns = 0;
    lim->swift_timing = 0;
}
