/*
 * Callgrind's client requests, for counting the instructions of one
 * measured round (BenchSupport, BENCH_CALLGRIND=1): collection is switched
 * on around the round and off after it. Outside valgrind (and where its
 * header is missing) these do nothing.
 */
#ifndef BLOODMAGIC_BENCH_CALLGRIND_H
#define BLOODMAGIC_BENCH_CALLGRIND_H

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BENCH_HAVE_CALLGRIND 1
#endif
#endif

/* Switches collection on or off (callgrind --collect-atstart=no). */
void bench_callgrind_toggle(void);

/* Whether the header was there when the harness was built. */
int bench_callgrind_available(void);

#endif
