#include "bench_callgrind.h"

void bench_callgrind_toggle(void) {
#ifdef BENCH_HAVE_CALLGRIND
    CALLGRIND_TOGGLE_COLLECT;
#endif
}

int bench_callgrind_available(void) {
#ifdef BENCH_HAVE_CALLGRIND
    return 1;
#else
    return 0;
#endif
}
