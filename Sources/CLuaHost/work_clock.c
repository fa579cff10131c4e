/*
 * work_clock.c: the count hook's slow path, which charges the time that VM
 * instructions spend beyond what they were charged for (see bm_limits.h).
 *
 * The count hook charges one unit per VM instruction. Some instructions do
 * work in proportion to their operands and never reach a C function of
 * ours: `==`, `<` and `<=` on two long strings of equal content (memcmp,
 * strcoll), a long string key equal to another in a table lookup, arithmetic
 * on a long numeric string; and so does one call of a C function of Lua's
 * own library that the sandbox does not replace. A loop of such instructions
 * used to run far past the instruction budget, and past the deadline, which
 * the hook reads only every `step` instructions.
 *
 * So the hook times each interval between its calls with bm_ticks (one
 * instruction on x86-64 and arm64) and compares it with the units charged
 * in it: its instructions and whatever the allocator and bm_charge_work
 * charged meanwhile. Each unit may take BM_UNIT_ALLOWANCE times the time of
 * one unit of work; an interval slower than that, or a step below the full
 * one, comes here, where:
 *
 *   - the step of the running thread is set so that an interval takes about
 *     BM_HOOK_INTERVAL_NS (a millisecond): the deadline is then read about
 *     every millisecond however slow each instruction is, and the
 *     instruction budget stops a run soon after it is spent. The step
 *     doubles back, interval by interval, once instructions are cheap again;
 *   - with an instruction budget, the thread's CPU time is read (never wall
 *     time: time the thread was not running, preempted or waiting, is not
 *     the script's), and the CPU time spent since the previous reading beyond
 *     the allowance of the units charged since is charged at one unit per
 *     unit of work's time (see below for the first two slow intervals).
 *
 * The first interval of slow instructions is the one the hook cannot shorten
 * after the fact: up to a full step (1,000) of them. The usual way to make
 * instructions slow is to build long strings first, so the allocator, when
 * it grants a run a block of 64 KiB or more, sets the step of the running
 * thread to what fits an interval if each instruction compared that block
 * (bm_hook_big_block). What is left is a long string kept from an earlier
 * run, or a coroutine made before the block: one interval of at most 1,000
 * such instructions, after which the hook sets the step.
 *
 * One unit of work's time is calibrated once per process: the time this
 * machine takes to compare 64 bytes with memcmp (the best of a few runs over
 * 128 KiB), which is what the sandbox's own scans charge one unit for, and
 * about what one VM instruction takes. So a script that compares two 4 MiB
 * strings pays about 65,536 units for each comparison, as if the sandbox had
 * compared them itself. What is never charged: up to BM_UNIT_ALLOWANCE units
 * of time per unit charged (ordinary instructions and C calls take far
 * less), and the first two slow intervals of a run (one full step of slow
 * instructions at most, and about a millisecond).
 * Time in Swift callbacks is left out (Swift charges its own work). Timing
 * every call into Swift would cost each call two tick reads, so it starts
 * only when needed: when the CPU time between two readings is over the
 * allowance, the slow path charges nothing yet and turns `swift_timing` on
 * for the rest of the run; from then on the trampolines time each stretch
 * of Swift between Lua's instructions (bm_swift_call_begins and
 * bm_swift_call_ends), the hook takes it off its intervals and the slow
 * path off the CPU time, and charges what is left over the allowance. So a
 * run is never charged before its third slow interval: the first takes the
 * first reading, the second turns the timing on.
 *
 * Cost: the hook's fast path adds a tick read, a multiplication and a
 * comparison to each call (every 1,000 instructions); a call of a Swift
 * function from Lua adds two tests, and two tick reads once Swift is timed;
 * the slow path reads the thread's CPU clock (a system call on Linux), and
 * runs at most about once per millisecond once the step is set.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sandbox_internal.h"

/* Bytes compared that make one unit of work (the sandbox's scan rate). */
#define BM_UNIT_BYTES 64
/* The time one charged unit may take before its interval is slow, in units
   of work's time. */
#define BM_UNIT_ALLOWANCE 128
/* The interval the hook's step aims at when instructions are slow. */
#define BM_HOOK_INTERVAL_NS 1000000.0
/* The buffers and runs of the calibration. */
#define BM_CALIBRATION_BYTES ((size_t)1 << 17)
#define BM_CALIBRATION_RUNS 8

/* What the calibration found, and what follows from it. */
typedef struct work_clock {
    double unit_ns;                   /* one unit of work's time */
    double allowance_ns;              /* the time a charged unit may take */
    double ticks_per_ns;              /* the rate of bm_ticks */
    unsigned long long slow_ticks;    /* allowance_ns in ticks: the hook's fast-path test */
    unsigned long long interval_ticks; /* BM_HOOK_INTERVAL_NS in ticks */
} work_clock;

/* Sanitizer runtimes make allocation (their malloc) and every instrumented
   load several times slower (ThreadSanitizer ten times and more), which the
   calibration's memcmp does not see; a sanitized process (a test run, never a
   product) allows each unit that much longer, so that its budgets run out
   where a plain build's do. */
extern void __asan_init(void) __attribute__((weak));
extern void __tsan_init(void) __attribute__((weak));
#define BM_ASAN_ALLOWANCE_FACTOR 16
#define BM_TSAN_ALLOWANCE_FACTOR 256

static work_clock measured;
static pthread_once_t measured_once = PTHREAD_ONCE_INIT;

/* Measures the unit of work's time and the tick rate (once per process;
   about 20 microseconds). Falls back to 2 ns a unit and a tick a nanosecond
   when the buffers cannot be allocated or the clocks say nothing. */
static void calibrate(void) {
    work_clock c = {2.0, 0, 1.0, 0, 0};
    unsigned char *a = malloc(BM_CALIBRATION_BYTES), *b = malloc(BM_CALIBRATION_BYTES);
    if (a != NULL && b != NULL) {
        memset(a, 'x', BM_CALIBRATION_BYTES);
        memset(b, 'x', BM_CALIBRATION_BYTES);
        /* Through a volatile pointer: the compiler must not fold the calls. */
        int (*volatile compare)(const void *, const void *, size_t) = memcmp;
        volatile int sink = 0;
        long long best = -1;
        long long start_ns = bm_now_ns();
        unsigned long long start_ticks = bm_ticks();
        for (int run = 0; run < BM_CALIBRATION_RUNS; run++) {
            long long before = bm_now_ns();
            sink += compare(a, b, BM_CALIBRATION_BYTES);
            long long took = bm_now_ns() - before;
            if (took > 0 && (best < 0 || took < best)) best = took;
        }
        long long span_ns = bm_now_ns() - start_ns;
        unsigned long long span_ticks = bm_ticks() - start_ticks;
        (void)sink;
        if (best > 0) c.unit_ns = (double)best / (double)(BM_CALIBRATION_BYTES / BM_UNIT_BYTES);
        if (span_ns > 0 && span_ticks > 0) c.ticks_per_ns = (double)span_ticks / (double)span_ns;
    }
    free(a);
    free(b);
    /* A clock too coarse or a machine too odd must not make every interval
       slow (or none). */
    if (c.unit_ns < 0.05) c.unit_ns = 0.05;
    if (c.unit_ns > 100.0) c.unit_ns = 100.0;
    c.allowance_ns = c.unit_ns * BM_UNIT_ALLOWANCE;
    if (__tsan_init != NULL) c.allowance_ns *= BM_TSAN_ALLOWANCE_FACTOR;
    else if (__asan_init != NULL) c.allowance_ns *= BM_ASAN_ALLOWANCE_FACTOR;
    c.slow_ticks = (unsigned long long)(c.allowance_ns * c.ticks_per_ns) + 1;
    c.interval_ticks = (unsigned long long)(BM_HOOK_INTERVAL_NS * c.ticks_per_ns) + 1;
    measured = c;
}

/* The calling thread's CPU time in nanoseconds, or 0 when unknown. */
static long long thread_cpu_ns(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (long long)ts.tv_sec * 1000000000LL + (long long)ts.tv_nsec;
}

/* The step that makes an interval of `count` instructions that took
   `elapsed` ticks last about BM_HOOK_INTERVAL_NS: smaller when it took
   longer, twice `count` (up to `full`) when it took under a quarter. */
static int fitting_step(const work_clock *c, unsigned long long elapsed, int count, int full) {
    if (elapsed > c->interval_ticks) {
        double fit = (double)count * (double)c->interval_ticks / (double)elapsed;
        return fit < 1.0 ? 1 : (int)fit;
    }
    if (elapsed < c->interval_ticks / 4 && count < full) return count > full / 2 ? full : count * 2;
    return count;
}

void bm_hook_slow_interval(lua_State *L, bm_limits *lim, unsigned long long now, long long units, int count) {
    pthread_once(&measured_once, calibrate);
    const work_clock *c = &measured;
    lim->hook_slow_ticks = c->slow_ticks;
    unsigned long long in_swift = lim->swift_ticks - lim->hook_swift_ticks;
    unsigned long long elapsed = now - lim->hook_ticks;
    elapsed = elapsed > in_swift ? elapsed - in_swift : 0;

    int full = lim->hook_step > 0 ? lim->hook_step : 1;
    int step = fitting_step(c, elapsed, count, full);
    if (step > full) step = full;
    /* Setting the hook marks every frame of the thread (lua_sethook is
       linear in the stack's depth): only for a change that matters. */
    if (step > count || (step < count && step <= count - count / 4)) lua_sethook(L, bm_count_hook, LUA_MASKCOUNT, step);

    if (lim->instruction_limit <= 0) return;
    unsigned long long allowed;
    if (units > 0 && !__builtin_mul_overflow((unsigned long long)units, c->slow_ticks, &allowed) && elapsed <= allowed)
        return; /* not slow: only the step changed */
    long long cpu = thread_cpu_ns();
    if (cpu <= 0) return;
    if (lim->cpu_mark_ns > 0 && cpu >= lim->cpu_mark_ns) {
        double in_swift = lim->swift_timing ? (double)(lim->swift_ticks - lim->cpu_mark_swift_ticks) / c->ticks_per_ns : 0;
        double spent = (double)(cpu - lim->cpu_mark_ns) - in_swift;
        double allowance = (double)(lim->cpu_mark_left - lim->instructions_left) * c->allowance_ns;
        if (spent > allowance) {
            if (lim->swift_timing) {
                double charge = (spent - allowance) / c->unit_ns;
                lim->instructions_left -= charge < 1e15 ? (long long)charge : (long long)1e15;
            } else {
                /* Part of it may have been Swift's: time Swift from now on,
                   and charge from the next reading. */
                lim->swift_timing = 1;
            }
        }
    }
    lim->cpu_mark_ns = cpu;
    lim->cpu_mark_left = lim->instructions_left;
    lim->cpu_mark_swift_ticks = lim->swift_ticks;
}

void bm_hook_big_block(bm_limits *lim, size_t bytes) {
    lua_State *L = lim->current;
    if (L == NULL || !(lua_gethookmask(L) & LUA_MASKCOUNT)) return;
    pthread_once(&measured_once, calibrate);
    const work_clock *c = &measured;
    /* How many instructions that each compare `bytes` bytes fit in one
       interval. */
    double per_instruction_ns = (double)bytes / BM_UNIT_BYTES * c->unit_ns;
    double fit = BM_HOOK_INTERVAL_NS / per_instruction_ns;
    int count = lua_gethookcount(L);
    int step = fit < 1.0 ? 1 : fit < (double)count ? (int)fit : count;
    if (step <= count - count / 4 && step < count) lua_sethook(L, bm_count_hook, LUA_MASKCOUNT, step);
}
