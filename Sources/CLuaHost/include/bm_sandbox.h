/*
 * bm_sandbox.h: the parts of the sandboxed standard library that BloodMagic
 * writes itself, so that no C function a script calls can run past the
 * state's budgets (see bm_limits.h):
 *
 *   - string.find, match, gmatch, gsub: a Lua 5.4 pattern matcher of our own
 *     that charges its steps to the instruction budget and reads the
 *     deadline; string.rep, which charges what it copies;
 *   - table.concat, insert, remove, move, unpack: the same functions, with
 *     their loops charged; table.sort with its comparisons charged;
 *   - setmetatable: a `__gc` metamethod runs in a coroutine of its own, where
 *     the count hook and the memory limit apply (Lua turns hooks off while a
 *     finalizer runs on the thread that collects).
 *
 * They behave as Lua's own functions do on every input that stays within the
 * budgets.
 */
#ifndef BLOODMAGIC_BM_SANDBOX_H
#define BLOODMAGIC_BM_SANDBOX_H

/* Declared without lua.h, so that Swift sees Lua's API through CLua only. */
struct lua_State;

/*
 * (flags) -> (): replaces the functions above in the libraries that
 * `flags` (BM_LIB_* from bm_libraries.h) opened. Run it under lua_pcall after the
 * libraries are open; it may raise (allocation).
 */
int bm_sandbox_install(struct lua_State *L);

/*
 * Caught errors read as uncaught ones (protected_calls.c, with the
 * explanation of error_messages.c): the sandbox's pcall, xpcall,
 * coroutine.resume and coroutine.close name the limit a
 * refused allocation was for, instead of Lua's "not enough memory"; an
 * error raised in the bm module's own Lua code carries the nearest
 * script's position; and a stack overflow through bm.resolve names the
 * chain of types (the dependency cycle, when it repeats), each with the
 * script line that asked for it. Installed by bm_sandbox_install, also in
 * unsafe states.
 */

/* (messages) -> (): keeps the table { [BM_REFUSED_*] = message } (popped)
   as the messages of refused allocations. Allocates (a registry entry):
   call it while Swift holds the state. */
int bm_sandbox_set_limit_messages(struct lua_State *L);

/* (fn) -> (): marks the function on top (popped) as bm.resolve, whose
   frames make up the chain an overflow message names. */
int bm_sandbox_mark_resolve_step(struct lua_State *L);

/* The message handler Swift calls Lua with: explains the error as above,
   gives a message that is not a string one (its __tostring, or "(error
   object is a T value)") except an error object carrying a Swift error
   (bm_error_objects.h), which stays itself, puts back the whole names of long chunks on the
   stack, and keeps a traceback in the registry (BM_TRACEBACK_KEY in
   bm_protected.h). The stack levels and modules it reads are charged to the
   instruction budget. */
int bm_sandbox_message_handler(struct lua_State *L);

/*
 * The registry key of the texts of the chunks scripts loaded, by chunk name
 * ({ ["@name"] = text, or false when the name was loaded with two texts }),
 * which chunk_texts.c records: the sandbox's `load` for a string chunk, and
 * `require` for a module file. Swift reads it for positions (LuaChunkTexts).
 */
#define BM_CHUNK_TEXTS_KEY "bloodmagic.chunktexts"

/* The largest file the sandbox's `require` reads: 64 MiB. */
#define BM_MAX_SCRIPT_FILE_SIZE (64 << 20)

/*
 * Work that Swift does for a script (host_charges.c): charges `units`
 * (about one VM instruction each) to the armed instruction budget and, with
 * `read_clock`, checks the deadline, as bm_charge_work does, without
 * raising. Returns 0, or BM_LIMIT_INSTRUCTIONS / BM_LIMIT_TIME (bm_limits.h)
 * when a budget is used up: the hit is recorded and the count hook then
 * fires on every instruction; the caller reports the limit's error. A no-op
 * when no budget is armed.
 */
int bm_sandbox_charge_swift_work(struct lua_State *L, long long units, int read_clock);

#endif /* BLOODMAGIC_BM_SANDBOX_H */
