/*
 * bm_limits.h: the limits of a BloodMagic Lua state.
 *
 * A state has up to three budgets:
 *   - memory: the bytes it holds at once (the counting allocator);
 *   - instructions: the work one top-level run may do. The count hook
 *     charges VM instructions; the allocator charges one instruction per
 *     BM_BYTES_PER_INSTRUCTION bytes a run allocates (so a C function that
 *     builds a huge string pays for it); the sandbox's own library functions
 *     (the pattern matcher, the table loops) charge their steps with
 *     bm_charge_work;
 *   - time: a wall-clock deadline for one top-level run, read by the count
 *     hook, by the allocator and by bm_charge_work.
 * Whatever the budget, hitting it raises a Lua error that names the limit.
 *
 * Some VM instructions do work in proportion to their operands (comparing
 * two long strings of equal content, converting a long numeric string) that
 * no C function of ours sees. The count hook therefore also times the
 * interval since its last call (bm_ticks): an interval far slower than the
 * units charged in it can be takes the hook's slow path (work_clock.c in
 * CLuaHost), which reads the deadline more often and charges the excess
 * CPU time to the instruction budget.
 *
 * The allocator, the count hook and closing are in limits.c (Lua calls the
 * first two through pointers). What stays static inline here runs on every
 * call into or out of Lua and Swift, or in the sandbox's charged loops.
 */
#ifndef BLOODMAGIC_BM_LIMITS_H
#define BLOODMAGIC_BM_LIMITS_H

#include "../../CLua/CLua.h"
#include <stddef.h>
#include <string.h>
#include <time.h>

#define BLOODMAGIC_CLUA_LIMITS_H

/*
 * One block per Lua state, owned by Swift, reachable from the allocator's
 * user data and from the state's extra space (so from every coroutine).
 *
 * `swift_depth` counts how deeply Swift code is in control of the state: it is
 * 1 while Swift holds the state outside any call into Lua, is set to 0 by
 * Swift around lua_pcall, and the trampolines add 1 while a Swift callback
 * runs. While it is above 0 the allocator never refuses a block (the bytes
 * are still counted), so an allocation made by a Swift frame cannot raise.
 * The limits are enforced as soon as Lua runs again: the return from a
 * Swift callback to Lua checks the memory limit (bm_leave_swift), so what
 * the callback pushed is refused there if the state is over it. A real allocation
 * failure in that window aborts the process, as Swift's own allocator does,
 * rather than longjmp across Swift frames.
 */
typedef struct bm_limits {
    size_t used;            /* bytes currently allocated by this state (and charged by Swift) */
    size_t peak;            /* the largest `used` seen */
    size_t memory_limit;    /* 0: no limit */
    int swift_depth;        /* > 0: Swift is in control (see above) */
    int memory_limit_hit;   /* set when an allocation was refused for the limit */
    int instruction_limit_hit;
    int hook_step;          /* the step the count hook is set with (1 once a budget is spent) */
    long long instruction_limit;   /* 0: not armed; the budget's size while armed */
    long long instructions_left;   /* budget of the current run */
    long long configured_instruction_limit; /* armed at each top-level run; 0: none */
    int run_depth;          /* protected calls made by Swift now running */
    void *host;             /* opaque pointer back to the Swift host, unused by C */
    lua_State *current;     /* the thread whose Swift callback runs now, or the main thread */
    /* Wall clock (CLOCK_MONOTONIC nanoseconds). */
    long long configured_time_limit_ns; /* armed at each top-level run; 0: none */
    long long time_limit_ns;       /* the armed budget's length (for messages) */
    long long deadline_ns;         /* 0: no deadline armed */
    int time_limit_hit;
    int refused;                   /* why the allocator last refused a block: BM_REFUSED_* */
    /* Finalizers that run outside a top-level run (a collection started by
       Swift's own allocations, or closing the state) share one budget, as
       large as a run's, started by the first of them and renewed by the
       next top-level run. */
    int idle_budget_started;
    long long idle_instructions_left;
    long long idle_deadline_ns;
    int closing;                   /* set while lua_close runs */
    /* Registry references dropped by Swift handles wait for the thread that
       holds the state. Other threads set `release_pending` (with __atomic
       builtins, under the Swift queue's lock); every entry into a Swift
       callback reads it and, when set, calls `drain_releases`. */
    int release_pending;
    void (*drain_releases)(lua_State *L);
    /* The count hook's timing (see bm_count_hook and work_clock.c). */
    unsigned long long hook_ticks;       /* bm_ticks() at the hook's last call, or when armed */
    long long hook_left;                 /* instructions_left then */
    unsigned long long hook_slow_ticks;  /* ticks one unit may take before an interval is slow; 0: not yet measured */
    long long cpu_mark_ns;               /* the thread's CPU time at the slow path's last reading; 0: none this run */
    long long cpu_mark_left;             /* instructions_left then */
    /* Time in Swift callbacks, which the hook does not count as the
       script's (Swift charges its own work). Once the hook's slow path has
       seen a run's instructions spend more CPU time than their allowance
       (`swift_timing`, for the rest of the run), each stretch of Swift
       between Lua's instructions is timed: it subtracts bm_ticks() when it
       begins and adds it when it ends, so that whenever Lua runs
       `swift_ticks` is the total (modulo 2^64). */
    unsigned long long swift_ticks;
    unsigned long long hook_swift_ticks; /* swift_ticks at the hook's last call */
    int swift_timing;                    /* stretches of Swift are timed */
    int swift_open;                      /* timed stretches begun and not ended (nested) */
    unsigned long long cpu_mark_swift_ticks; /* swift_ticks at cpu_mark_ns */
    /* Swift errors carried through Lua (bm_error_objects.h): the entries of
       the state's side table, and the Swift function that releases them all
       when a top-level run ends, except the one whose id is `keep`. */
    int error_causes;
    void (*release_error_causes)(lua_State *L, unsigned long long keep);
} bm_limits;

/* Why the allocator refused a block. */
enum { BM_REFUSED_NONE = 0, BM_REFUSED_MEMORY = 1, BM_REFUSED_INSTRUCTIONS = 2, BM_REFUSED_TIME = 3 };

/*
 * The count hook's slow path (work_clock.c in CLuaHost), for an interval
 * that took longer than its `units` may, or a step below the full one: sets
 * this thread's step so that the hook runs about every millisecond, and
 * charges the CPU time spent beyond what the units charged since may take.
 * `now` is bm_ticks() at this call, `count` the thread's step.
 */
void bm_hook_slow_interval(lua_State *L, bm_limits *lim, unsigned long long now, long long units, int count);

/*
 * Called by the allocator when a run is granted a block of `bytes` (at least
 * BM_BIG_BLOCK): one instruction may now compare or scan that many bytes, so
 * the step of the thread Swift runs (`current`) is made small enough for
 * such instructions to be timed about every millisecond (work_clock.c).
 */
void bm_hook_big_block(bm_limits *lim, size_t bytes);

/* Bytes of growth the allocator charges as one instruction. */
#define BM_BYTES_PER_INSTRUCTION 64

/* Growth from which the allocator reads the clock, and refuses a block when
   the instruction budget or the deadline is spent. */
#define BM_BIG_BLOCK ((size_t)1 << 16)

/* Finalizers run while a state closes get this much time when the state has
   neither an instruction nor a time limit: closing never runs user code
   unbounded. */
#define BM_CLOSE_DEFAULT_TIME_NS 1000000000LL

/* Inline: one load, read on every call into or out of Swift and by the allocator. */
static inline bm_limits *bm_limits_of(lua_State *L) {
    return *(bm_limits **)lua_getextraspace(L);
}

/* Inline: one store; kept beside bm_limits_of. */
static inline void bm_set_limits(lua_State *L, bm_limits *limits) {
    *(bm_limits **)lua_getextraspace(L) = limits;
}

/* Monotonic clock, in nanoseconds. */
/* Inline: read by the count hook and bm_charge_work in their loops. */
static inline long long bm_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + (long long)ts.tv_nsec;
}

/*
 * A cheap tick counter for timing the count hook's intervals: the CPU's
 * time-stamp counter where user code can read it in one instruction, the
 * monotonic clock elsewhere. Ticks are converted with the rate measured in
 * work_clock.c; only differences between two readings on one thread mean
 * anything.
 */
/* Inline: one instruction (rdtsc / cntvct), read on every entry into and exit from Swift. */
static inline unsigned long long bm_ticks(void) {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    unsigned long long ticks;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(ticks));
    return ticks;
#else
    return (unsigned long long)bm_now_ns();
#endif
}

/* A Swift function is called (from Lua, or as a finalizer): while stretches
   of Swift are timed, one begins. A stretch inside a stretch (a Swift
   finalizer run by a collection that Swift's allocation started) has its
   time counted twice, never as the script's. */
/* Inline: every call into Swift (lua.call and callback rows of LuaHostBenchmarks, BMBenchmarks). */
static inline __attribute__((always_inline)) void bm_swift_call_begins(bm_limits *lim) {
    if (__builtin_expect(lim->swift_timing, 0)) {
        lim->swift_ticks -= bm_ticks();
        lim->swift_open += 1;
    }
}

/* The Swift function returns: the stretch it began, if any, ends. (Calls
   nest, and timing stays on until the run ends, so a call that began no
   stretch is never inside one that did.) */
/* Inline: every return from Swift (as bm_swift_call_begins). */
static inline __attribute__((always_inline)) void bm_swift_call_ends(bm_limits *lim) {
    if (__builtin_expect(lim->swift_open > 0, 0)) {
        lim->swift_ticks += bm_ticks();
        lim->swift_open -= 1;
    }
}

/* Swift code in a timed stretch runs Lua (a protected call, a finalizer):
   returns whether the stretch pauses, to be passed to bm_swift_resumes. */
/* Inline: every bm_call_at (the lua.call rows). */
static inline __attribute__((always_inline)) int bm_swift_pauses(bm_limits *lim) {
    if (__builtin_expect(lim->swift_open == 0, 1)) return 0;
    lim->swift_ticks += bm_ticks();
    return 1;
}

/* Inline: every bm_call_at (the lua.call rows). */
static inline __attribute__((always_inline)) void bm_swift_resumes(bm_limits *lim, int paused) {
    if (paused) lim->swift_ticks -= bm_ticks();
}

/* Whether an instruction budget or a deadline is armed. */
/* Inline: one compare, tested on hot paths of the allocator and finalizers. */
static inline int bm_budget_armed(const bm_limits *lim) {
    return lim->instruction_limit > 0 || lim->deadline_ns != 0;
}

/*
 * The allocator. While Lua runs (swift_depth == 0) a block that grows is
 * refused, so that Lua raises LUA_ERRMEM with no Swift frame on the way,
 * when it would pass the memory limit, or when it is big and the armed
 * instruction budget is spent (growth is charged to it) or the armed
 * deadline has passed; `refused` says which, for the error Swift reports.
 */
void *bm_counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* The count hook: charges the instructions since its last call and reads the
   clock. Raises from C, with the position of the running code. */
void bm_count_hook(lua_State *L, lua_Debug *ar);

/* Which budget a limit error is about. */
enum { BM_LIMIT_INSTRUCTIONS = 1, BM_LIMIT_TIME = 2 };

/*
 * Raises the error of a used-up budget on `L`, prefixed with `where` (a
 * "chunk:line: " string, or ""). The hook then fires on every instruction of
 * this thread, so that a script which catches the error with pcall cannot
 * keep running for long.
 */
/* Inline: reached from bm_charge_work, which the sandbox's loops inline. */
static inline int bm_raise_limit(lua_State *L, bm_limits *lim, int which, const char *where) {
    (void)lua_checkstack(L, 2);
    lua_sethook(L, bm_count_hook, LUA_MASKCOUNT, 1);
    lim->hook_step = 1;
    /* The message itself must not be refused by the spent budget. */
    lim->swift_depth += 1;
    if (which == BM_LIMIT_TIME) {
        char seconds[32]; /* as Swift prints it: "1", "0.25" */
        snprintf(seconds, sizeof seconds, "%.14g", (double)lim->time_limit_ns / 1e9);
        lim->time_limit_hit = 1;
        lua_pushfstring(L, "%stime limit exceeded (%s s)", where, seconds);
    } else {
        lim->instruction_limit_hit = 1;
        lua_pushfstring(L, "%sinstruction limit exceeded (%I instructions)", where,
                        (LUAI_UACINT)lim->instruction_limit);
    }
    lim->swift_depth -= 1;
    return lua_error(L);
}

/* Which budget, if any, is used up now; reads the clock when `read_clock`. */
/* Inline: the test in bm_charge_work, run per batch of the sandbox's loops. */
static inline int bm_budget_exhausted(const bm_limits *lim, int read_clock) {
    if (lim->instruction_limit > 0 && lim->instructions_left < 0) return BM_LIMIT_INSTRUCTIONS;
    if (read_clock && lim->deadline_ns != 0 && bm_now_ns() >= lim->deadline_ns) return BM_LIMIT_TIME;
    return 0;
}

/*
 * Charges `units` of work done by a C function called from Lua (one unit is
 * worth about one VM instruction) and, with `read_clock`, checks the
 * deadline. Raises the limit's error with the caller's position when a
 * budget is used up. A no-op when nothing is armed.
 */
/* Inline: charged per batch inside the pattern matcher and table loops (compiled into their .c files). */
static inline void bm_charge_work(lua_State *L, long long units, int read_clock) {
    bm_limits *lim = bm_limits_of(L);
    if (lim == NULL || !bm_budget_armed(lim)) return;
    if (lim->instruction_limit > 0) lim->instructions_left -= units;
    int which = bm_budget_exhausted(lim, read_clock);
    if (which == 0) return;
    (void)lua_checkstack(L, 3);
    lim->swift_depth += 1;
    luaL_where(L, 1);
    lim->swift_depth -= 1;
    /* The position string stays on the stack below the message; lua_error
       unwinds it with everything else. */
    bm_raise_limit(L, lim, which, lua_tostring(L, -1));
}

/*
 * Arms a budget on `L`: `limit` instructions of which `left` remain (0: no
 * instruction budget), and a deadline (0: none) for a budget of `time_ns`.
 */
/* Inline: part of bm_call_at's outermost call (the lua.call rows). */
static inline void bm_arm_budget(lua_State *L, bm_limits *lim, long long limit, long long left,
                                 long long time_ns, long long deadline) {
    lim->instruction_limit = limit > 0 ? limit : 0;
    lim->instructions_left = left;
    lim->time_limit_ns = time_ns;
    lim->deadline_ns = deadline;
    int step = 1000;
    if (limit > 0 && limit < step) step = (int)limit;
    lim->hook_step = step;
    lim->hook_ticks = bm_ticks();
    lim->hook_left = left;
    lim->cpu_mark_ns = 0;
    lim->swift_timing = 0;
    lim->hook_swift_ticks = lim->swift_ticks;
    lua_sethook(L, bm_count_hook, LUA_MASKCOUNT, step);
}

/* Disarms the budget on `L`; the hit flags stay for the caller. */
/* Inline: part of bm_call_at's outermost call (the lua.call rows). */
static inline void bm_disarm_budget(lua_State *L, bm_limits *lim) {
    lim->instruction_limit = 0;
    lim->deadline_ns = 0;
    lim->swift_timing = 0;
    lua_sethook(L, NULL, 0, 0);
}

/*
 * What a top-level run starts with (a protected call's or a host-run
 * coroutine's): no limit hit yet, nothing refused, the finalizers' idle
 * budget renewed.
 */
/* Inline: part of bm_call_at's outermost call (the lua.call rows). */
static inline void bm_start_run(bm_limits *lim) {
    lim->instruction_limit_hit = 0;
    lim->memory_limit_hit = 0;
    lim->time_limit_hit = 0;
    lim->refused = BM_REFUSED_NONE;
    lim->idle_budget_started = 0;
}

/*
 * Starts a top-level run: clears the hit flags, renews the finalizers' idle
 * budget and arms the configured budgets. Returns whether anything was armed.
 */
/* Inline: part of bm_call_at's outermost call (the lua.call rows). */
static inline int bm_arm_run_budget(lua_State *L) {
    bm_limits *lim = bm_limits_of(L);
    bm_start_run(lim);
    long long instructions = lim->configured_instruction_limit;
    long long time_ns = lim->configured_time_limit_ns;
    if (instructions <= 0 && time_ns <= 0) return 0;
    bm_arm_budget(L, lim, instructions, instructions, time_ns, time_ns > 0 ? bm_now_ns() + time_ns : 0);
    return 1;
}

/*
 * The budget a finalizer runs under. Inside a top-level run it is the run's
 * own (already armed: nothing to do). Outside one, it is the idle budget
 * (see bm_limits), armed here on the block only: the finalizer's own
 * coroutine gets the hook. Returns whether it armed the idle budget, to be
 * passed to bm_finalizer_budget_leave.
 */
int bm_finalizer_budget_enter(bm_limits *lim);

void bm_finalizer_budget_leave(bm_limits *lim, int armed);

/*
 * Closes a state. Finalizers that run now get the idle budget, freshly
 * started (a default time budget when no limit is configured); the sandbox's
 * finalizers run under the memory limit too (see finalizers.c).
 */
void bm_close_state(lua_State *L);

/* Marks that registry references wait to be released (any thread; the
   caller holds the Swift queue's lock). */
/* Inline: one store, from LuaReference's release on any thread. */
static inline void bm_set_release_pending(bm_limits *lim, int pending) {
    __atomic_store_n(&lim->release_pending, pending, __ATOMIC_RELEASE);
}

/* Whether registry references wait to be released (one atomic load). */
/* Inline: one load, tested by bm_enter_swift on every call into Swift. */
static inline int bm_release_pending(const bm_limits *lim) {
    return __atomic_load_n(&lim->release_pending, __ATOMIC_ACQUIRE);
}

#endif /* BLOODMAGIC_BM_LIMITS_H */
