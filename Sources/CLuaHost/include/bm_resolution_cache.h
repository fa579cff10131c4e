/*
 * bm_resolution_cache.h: the bm module's resolution cache: bm.resolve in C
 * for cached entries (see BMFastResolution.swift).
 */
#ifndef BLOODMAGIC_BM_RESOLUTION_CACHE_H
#define BLOODMAGIC_BM_RESOLUTION_CACHE_H

#include "../../CLua/CLua.h"

/*
 * The registry's generation, read by Swift functions called straight from C
 * (no trampoline: they never raise and never touch the Lua stack).
 * `bm_generation_fn` gets the registry (the object a Swift box userdata
 * retains) and returns its generation; `bm_busy_fn` tells whether the
 * calling thread is inside a Swift-tracked resolution.
 */
typedef unsigned long long (*bm_generation_fn)(void *registry);

typedef int (*bm_busy_fn)(void);

/*
 * Where the generation comes from: a Swift box userdata (the shared box
 * metatable's __gc releases `registry` at offset 0 and sets it to NULL)
 * with the reading function after it, so that one API call finds both.
 */
typedef struct bm_generation_source {
    void *registry;
    bm_generation_fn read;
} bm_generation_source;

/* Stores `read` in the generation source on top of the stack (a box that
   Swift pushed with room for it). */
void bm_set_generation_reader(lua_State *L, bm_generation_fn read);

/*
 * core.generation() -> generation, busy, thread. Upvalues: 1 the generation
 * source, 2 the bm_busy_fn.
 */
int bm_generation_reader(lua_State *L);

/*
 * bm.resolve(type, options). When there are no options and the cache
 * (upvalue 2: type name -> { generation, init, value }) holds a current entry,
 * calls `init(nil)` and returns its first result, or returns `value`;
 * otherwise hands every argument to the Lua implementation (upvalue 3) and
 * returns what it returns. Upvalue 1 is the generation source.
 * Errors of either function pass through: only C and Lua frames are here.
 * Either function may yield (both calls have continuations), so a Lua
 * initializer served from the cache can wait inside a coroutine.
 */
int bm_cached_resolve(lua_State *L);

/* Pushes core.generation, popping the generation source from the top. */
void bm_push_generation_reader(lua_State *L, bm_busy_fn busy);

/* Pushes the C bm.resolve, popping the generation source, the cache table
   and the Lua bm.resolve (pushed in that order). */
void bm_push_cached_resolve(lua_State *L);

#endif /* BLOODMAGIC_BM_RESOLUTION_CACHE_H */
