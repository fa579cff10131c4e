/*
 * CLuaHost.h: the compiled C of BloodMagic's Lua host, one header per part
 * (Swift sees them all through `import CLuaHost`; Lua's API itself comes from
 * CLua). Each header is self-contained.
 */
#ifndef BLOODMAGIC_CLUAHOST_H
#define BLOODMAGIC_CLUAHOST_H

#include "bm_limits.h"            /* budgets, allocator, count hook */
#include "bm_state.h"             /* opening a state, the protected call */
#include "bm_trampolines.h"       /* Lua calling Swift, script positions */
#include "bm_error_objects.h"     /* Swift errors carried through Lua */
#include "bm_protected.h"         /* API calls that may raise, run protected */
#include "bm_libraries.h"         /* opening the (sandboxed) libraries */
#include "bm_require.h"           /* confined require, module names, paths */
#include "bm_exposed.h"           /* exposed Swift objects */
#include "bm_resolution_cache.h"  /* bm.resolve in C for cached entries */
#include "bm_sandbox.h"           /* the sandbox's own library functions */
#include "bm_coroutines.h"        /* coroutines that wait, async Swift functions */
#include "bm_continuations.h"     /* Swift functions that call Lua back with a continuation */
#include "bm_chunk_dumps.h"       /* the host's own binary chunks, cheaper to load */

#endif /* BLOODMAGIC_CLUAHOST_H */
