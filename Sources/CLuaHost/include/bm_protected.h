/*
 * bm_protected.h: small C functions that Swift runs under lua_pcall for the
 * API calls that may raise (metamethods, allocation).
 */
#ifndef BLOODMAGIC_BM_PROTECTED_H
#define BLOODMAGIC_BM_PROTECTED_H

#include "../../CLua/CLua.h"

/* Where the message handler (bm_sandbox_message_handler in error_messages.c)
   keeps the traceback of the last error, in the registry. */
static const char *const BM_TRACEBACK_KEY = "bloodmagic.traceback";

/* Whether the value at `index` is the C function `handler`: a handler slot
   kept for the length of a scope (LuaStack.withMessageHandler) is trusted
   only while it still holds it, below the function about to be called. */
/* Inline: tested by Swift before every protected call that reuses a handler slot (lua.call rows). */
static inline int bm_is_handler_below(lua_State *L, int index, int function, lua_CFunction handler) {
    return index > 0 && index < function && lua_tocfunction(L, index) == handler;
}

/* t[k] with metamethods: (t, k) -> v */
int bm_protected_gettable(lua_State *L);

/* t[k] = v with metamethods: (t, k, v) -> () */
int bm_protected_settable(lua_State *L);

/* tostring(v) with __tostring and __name: (v) -> s */
int bm_protected_tostring(lua_State *L);

/* A table's pairs, copied into a new sequence {k1, v1, k2, v2, ...}: (t) -> s.
   Raw reads only (no metamethod runs), but the copy allocates, so it runs as
   a protected call: a memory error comes back as a status. */
int bm_protected_pairs_snapshot(lua_State *L);

/* Whether v should be shown by tostring rather than expanded: not a table,
   or a table whose metatable has __tostring or __name: (v) -> boolean */
int bm_protected_shows_itself(lua_State *L);

/* a == b with __eq: (a, b) -> boolean */
int bm_protected_equal(lua_State *L);

#endif /* BLOODMAGIC_BM_PROTECTED_H */
