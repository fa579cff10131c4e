/*
 * bm_error_objects.h: Swift errors carried through Lua as themselves.
 *
 * A Swift callback that fails with a Swift error (the app's own, a
 * SpellError) raises, instead of a string, an error object: a full
 * userdata holding an id and, as its user value, the message. Swift keeps
 * the error itself in a side table of the state, under the id; when the
 * object comes back to Swift (a protected call that failed with it), the
 * LuaError made from it gets the Swift error as its cause.
 *
 * A script sees only the message: `tostring(e)`, `e .. "x"`, `#e` and the
 * string methods (`e:find(...)`) read it; `getmetatable(e)` is the string
 * "Swift error". It cannot read the id, cannot make an error object (Lua code
 * cannot make a userdata or set one's metatable), and a string with the
 * same text carries nothing. It can pass the object on (`error(e)`,
 * `error(e, 0)`, a coroutine's error, pcall inside pcall): the same value
 * keeps its cause.
 *
 * The side table's entries are charged to the memory limit through the
 * objects themselves: an object's block is BM_ERROR_OBJECT_SIZE bytes, what
 * Swift keeps for it, so Lua's allocator counts the entry while Lua holds
 * the object and gives it back when it collects it. Objects have no
 * finalizer (one would keep a collected object's memory for another cycle,
 * and out of reach of an emergency collection): a weak table tells Swift
 * which ones Lua collected, and Swift releases their entries in a sweep
 * (bm_error_object_alive) when the table has doubled since the last one. An
 * entry is also released when its object reaches Swift (taken), and when
 * the top-level run it was made in ends (every entry: a script cannot keep
 * a Swift error beyond its run); the object then reads as its message
 * alone.
 */
#ifndef BLOODMAGIC_BM_ERROR_OBJECTS_H
#define BLOODMAGIC_BM_ERROR_OBJECTS_H

#include "bm_limits.h"

/* The name error objects show (__name, and __metatable for getmetatable). */
#define BM_ERROR_OBJECT_NAME "Swift error"

/* The bytes of an error object's block: its id, and what Swift keeps for
   it (a side-table slot and the error's box), charged to the memory limit
   this way. */
#define BM_ERROR_OBJECT_SIZE 64

/*
 * Replaces the message string on top of the stack by an error object with
 * `id` (not 0) and that message. Needs 3 free slots; raises nothing while
 * Swift holds the state (the allocator never refuses a block then).
 */
void bm_push_error_object(lua_State *L, unsigned long long id);

/* Whether Lua still holds the error object made with `id` (not yet
   collected). Needs 2 free slots (answers 1 without them). */
int bm_error_object_alive(lua_State *L, unsigned long long id);

/* Whether the value at `idx` is an error object. */
int bm_is_error_object(lua_State *L, int idx);

/* The id of the error object at `idx`, set to 0 (it then carries nothing);
   0 when the value is not one, or was taken already. */
unsigned long long bm_error_object_take(lua_State *L, int idx);

/* Pushes the message of the error object at `idx` (a string); pushes
   nothing and returns 0 when the value is not one. Needs 1 free slot. */
int bm_push_error_message(lua_State *L, int idx);

/*
 * A top-level run ended (bm_call_at) while the side table holds entries:
 * Swift releases them all (lim->release_error_causes), except the one of
 * the error object the run failed with, which the caller takes next.
 */
__attribute__((cold)) void bm_error_causes_run_ends(lua_State *L, bm_limits *lim, int status);

#endif /* BLOODMAGIC_BM_ERROR_OBJECTS_H */
