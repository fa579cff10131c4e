/*
 * bm_libraries.h: opening the standard libraries of a state, sandboxed or
 * not: the library sets, the denials, `load` for text only, and the
 * confined `package` (bm_require.h).
 */
#ifndef BLOODMAGIC_BM_LIBRARIES_H
#define BLOODMAGIC_BM_LIBRARIES_H

#include "../../CLua/CLua.h"

/* Library sets for bm_protected_openlibs. */
enum {
    BM_LIB_BASE = 1 << 0,
    BM_LIB_TABLE = 1 << 1,
    BM_LIB_STRING = 1 << 2,
    BM_LIB_MATH = 1 << 3,
    BM_LIB_UTF8 = 1 << 4,
    BM_LIB_COROUTINE = 1 << 5,
    BM_LIB_OS = 1 << 6,       /* safe subset: time, clock, date */
    BM_LIB_PACKAGE = 1 << 7,  /* require for Lua modules only */
    BM_LIB_UNSAFE = 1 << 8    /* the full standard library */
};

void bm_deny(lua_State *L, int table, const char *field, const char *qualified);

/* (flags) -> (); opens the chosen libraries and applies the sandbox. */
int bm_protected_openlibs(lua_State *L);

#endif /* BLOODMAGIC_BM_LIBRARIES_H */
