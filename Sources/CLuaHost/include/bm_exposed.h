/*
 * bm_exposed.h: exposed Swift objects (LuaBridge): the object block, and the
 * C method, __index, __newindex and __eq entries that check `self` in C.
 */
#ifndef BLOODMAGIC_BM_EXPOSED_H
#define BLOODMAGIC_BM_EXPOSED_H

#include "bm_trampolines.h"
#include <stddef.h>
#include <stdint.h>

/*
 * The block of a userdata that stands for an exposed Swift object. `object`
 * is the retained Swift object (NULL once `__gc` released it); `tag` is the
 * per-state registration of its exposed type, so that a metamethod or method
 * can check in C that argument 1 is one of its own objects.
 */
typedef struct bm_exposed_object {
    void *object;
    const void *tag;
} bm_exposed_object;

/*
 * A Swift entry for an exposed member, called directly from C (no extra Lua
 * call frame): the object (NULL when argument 1 is not an object of `type`),
 * the type's tag and the member's descriptor. Same contract as
 * bm_swift_function: a count of results, or a BM_RAISE sentinel.
 */
typedef int (*bm_exposed_entry)(lua_State *L, void *object, const void *type, void *member);

/*
 * What a method closure or an accessor metamethod needs, in one userdata
 * upvalue so that a call reads it with a single API call: the Swift entry,
 * the type tag and (for a method) the member descriptor.
 */
typedef struct bm_exposed_binding {
    bm_exposed_entry entry;
    const void *tag;
    void *member;
    /* A property stored in the object at `offset` as a plain value, which
       __index reads in C without entering Swift: one of the kinds below,
       or BM_STORED_NONE (the getter entry reads it). */
    int stored_kind;
    ptrdiff_t stored_offset;
} bm_exposed_binding;

enum {
    BM_STORED_NONE = 0,
    BM_STORED_INT64 = 1,   /* Int, Int64: a Lua integer */
    BM_STORED_DOUBLE = 2,  /* Double: a Lua float */
    BM_STORED_BOOL = 3     /* Bool: one byte, 0 or 1 */
};

/* The block at `idx` when it is an exposed object of the type `tag`.
   lua_touserdata is NULL for anything but userdata, and lua_rawlen is 0 for
   light userdata, so two calls tell a block of ours from anything else. */
/* Inline: every exposed method, __index and __newindex call runs it (LuaBridgeBenchmarks-style rows of LuaHostBenchmarks). */
static inline __attribute__((always_inline)) bm_exposed_object *bm_exposed_check(lua_State *L, int idx, const void *tag) {
    bm_exposed_object *block = (bm_exposed_object *)lua_touserdata(L, idx);
    if (block == NULL || lua_rawlen(L, idx) != sizeof(bm_exposed_object)) return NULL;
    return block->tag == tag ? block : NULL;
}

/* Calls a Swift entry with the same bookkeeping as bm_trampoline. */
/* Inline: the Swift entry of every exposed member call (same rows as bm_exposed_check). */
static inline __attribute__((always_inline)) int bm_exposed_call(lua_State *L, bm_exposed_entry fn, void *object, const void *tag, void *member) {
    bm_reserve_swift_stack(L);
    bm_swift_frame frame = bm_enter_swift(L);
    int n = fn(L, object, tag, member);
    return bm_leave_swift(L, frame, n);
}

/* A method of an exposed type; upvalue 1 is its binding. Argument 1 is `self`. */
int bm_exposed_method(lua_State *L);

/*
 * __index of an exposed type: (object, key). Upvalue 1 is the members table:
 * name -> method closure, or name -> the property's binding (a full
 * userdata with the Swift getter entry, the type tag and the member), read
 * raw in one lookup. Methods never leave C; a property calls its getter
 * entry directly; any other key reads as nil.
 */
int bm_exposed_index(lua_State *L);

/*
 * __newindex of an exposed type: (object, key, value). Upvalue 1 is the
 * members table, upvalue 2 the binding with the Swift setter entry. The
 * member is NULL for a key that is not a property; the entry reports that.
 */
int bm_exposed_newindex(lua_State *L);

/* __eq of exposed objects: the same Swift object. */
int bm_exposed_equal(lua_State *L);

/* Pushes a binding userdata (no metatable: it only holds pointers). A
   property's binding with a kind other than BM_STORED_NONE is read by
   __index in C at `offset`. */
void bm_push_exposed_stored_binding(lua_State *L, bm_exposed_entry fn, const void *tag, void *member,
                                                  int kind, ptrdiff_t offset);

void bm_push_exposed_binding(lua_State *L, bm_exposed_entry fn, const void *tag, void *member);

/* Pushes a method closure of an exposed type (see bm_exposed_method). */
void bm_push_exposed_method(lua_State *L, bm_exposed_entry fn, const void *tag, void *member);

/* Pushes __index of an exposed type whose members table is at `members`
   (each property's binding in that table carries its getter entry). */
void bm_push_exposed_index(lua_State *L, int members);

/* Pushes __newindex of an exposed type whose members table is at `members`;
   `fn` is the Swift setter entry, called for every assignment. */
void bm_push_exposed_newindex(lua_State *L, int members, const void *tag, bm_exposed_entry fn);

#endif /* BLOODMAGIC_BM_EXPOSED_H */
