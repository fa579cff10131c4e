/*
 * sandbox_internal.h: what the files of the sandboxed library share.
 */
#ifndef BLOODMAGIC_SANDBOX_INTERNAL_H
#define BLOODMAGIC_SANDBOX_INTERNAL_H

#include <stddef.h>

#include "CLuaHost.h"

/* Units of work a loop gathers before it charges them and reads the clock
   (a few microseconds of work). */
#define BM_WORK_BATCH 4096

/* Rates of work, in bytes per unit (one unit is worth about one VM
   instruction, a nanosecond or two): a scan at memchr or memcmp speed, and a
   loop that handles each byte in turn (UTF-8 decoding, Lua's lexer, reading
   a number). */
#define BM_SCAN_BYTES_PER_UNIT 64
#define BM_LOOP_BYTES_PER_UNIT 1

/* The most values a C function can push (Lua's stack holds at most
   LUAI_MAXSTACK, a million slots): a range beyond it fails at once. */
#define BM_MOST_RESULTS 1000000

/* Work a library call may do without being charged: the call's own
   instruction covers it (see work_clock.c), and a script's usual calls keep
   the instruction counts they always had. */
#define BM_FREE_UNITS 64

/* Charges `units` of work done by one library call, beyond BM_FREE_UNITS;
   reads the clock when they are at least a batch. */
static inline void bm_charge_call(lua_State *L, long long units) {
    if (units >= BM_FREE_UNITS) bm_charge_work(L, units, units >= BM_WORK_BATCH);
}

/* Lua's own C function behind a front-end, kept in the front-end's slot when
   the sandbox is installed. Its address is the library's, the same in every
   state of the process, so the slot is a static, written and read
   atomically; the front-end is a C function without upvalues, which costs a
   state nothing to install. */
static inline lua_CFunction bm_lua_function(lua_CFunction *slot) {
    return __atomic_load_n(slot, __ATOMIC_RELAXED);
}

/* Runs Lua's function kept in `slot` in the calling frame, on the arguments
   as they are: its results, and its errors, which name the function and the
   script's position as when Lua calls it directly. */
static inline int bm_run_lua_function(lua_State *L, lua_CFunction *slot) {
    return bm_lua_function(slot)(L);
}

/* Argument `arg` as an integer, `def` when it is absent or nil. Raises
   nothing: returns 0 when it is neither (Lua's own function then raises the
   error). A numeric string is read as Lua reads it, after charging its
   length. */
static inline int bm_optional_integer(lua_State *L, int arg, lua_Integer def, lua_Integer *value) {
    if (lua_isnoneornil(L, arg)) {
        *value = def;
        return 1;
    }
    if (lua_type(L, arg) == LUA_TSTRING) bm_charge_call(L, (long long)(lua_rawlen(L, arg) / BM_LOOP_BYTES_PER_UNIT));
    int isnum = 0;
    *value = lua_tointegerx(L, arg, &isnum);
    return isnum;
}

/* A position in a string of `length` bytes as Lua's string and utf8
   functions read one: negative counts from the end, and one before the start
   reads as 0. */
static inline lua_Integer bm_relative_position(lua_Integer position, size_t length) {
    if (position >= 0) return position;
    if ((size_t)0 - (size_t)position > length) return 0;
    return (lua_Integer)length + position + 1;
}

/* ------------------------------------------------------------------------ */
/* The pattern matcher (pattern_matcher.c)                                   */
/* ------------------------------------------------------------------------ */

/* As many captures as Lua's own matcher allows. */
#define BM_PATTERN_MAX_CAPTURES 32
/* As many nested alternatives as Lua's own matcher allows before it reports
   "pattern too complex". */
#define BM_PATTERN_MAX_DEPTH 200

/* A capture's length while it is still open, and for a position capture. */
enum { BM_CAPTURE_OPEN = -1, BM_CAPTURE_POSITION = -2 };

typedef struct bm_capture {
    const char *start;
    ptrdiff_t length;   /* or BM_CAPTURE_OPEN / BM_CAPTURE_POSITION */
} bm_capture;

/* One subject and one pattern being matched. */
typedef struct bm_matcher {
    lua_State *L;                /* for errors and for the budget */
    const char *subject;
    const char *subject_end;
    const char *pattern_end;
    int depth_left;              /* nested alternatives still allowed */
    int count;                   /* captures opened so far */
    long long work;              /* steps not yet charged */
    bm_capture captures[BM_PATTERN_MAX_CAPTURES];
} bm_matcher;

/* Prepares a matcher for `subject` (ls bytes) and a pattern ending at
   `pattern + lp` (already past a leading '^', if the caller handles it). */
void bm_matcher_init(bm_matcher *m, lua_State *L, const char *subject, size_t ls,
                     const char *pattern, size_t lp);

/* Matches the pattern from `p` against the subject from `s`; returns the end
   of the match, or NULL. Raises for a malformed pattern or a used-up budget. */
const char *bm_matcher_run(bm_matcher *m, const char *s, const char *p);

/* Charges the steps not charged yet (without reading the clock). */
void bm_matcher_settle(bm_matcher *m);

/* Adds `units` of work; every BM_WORK_BATCH units they are charged and the
   clock is read. */
void bm_matcher_tick(bm_matcher *m, long long units);

/* Capture `i` (0-based) of the match s..e (the whole match when there are no
   captures and i is 0): its length and start, or BM_CAPTURE_POSITION after
   pushing the position. Raises for an invalid or unfinished capture. */
ptrdiff_t bm_matcher_capture(bm_matcher *m, int i, const char *s, const char *e, const char **start);

/* Pushes capture `i` of the match s..e. */
void bm_matcher_push_capture(bm_matcher *m, int i, const char *s, const char *e);

/* Pushes every capture of the match s..e (the whole match when there are
   none and `s` is not NULL); returns how many. */
int bm_matcher_push_captures(bm_matcher *m, const char *s, const char *e);

/* ------------------------------------------------------------------------ */
/* Library parts                                                             */
/* ------------------------------------------------------------------------ */

/* Replace the functions of the library table on top of the stack. */
void bm_sandbox_string_functions(lua_State *L);
void bm_sandbox_table_functions(lua_State *L);
void bm_sandbox_utf8_functions(lua_State *L);

/* Put charging front-ends before Lua's own functions whose work grows with
   a string argument (metered_functions.c): string.byte, format, pack and
   unpack in the string table on top of the stack; load, tonumber and
   collectgarbage in the globals table on top of the stack. */
void bm_sandbox_metered_string_functions(lua_State *L);
void bm_sandbox_metered_base_functions(lua_State *L);

/* Replaces t[name] (t on top of the stack), Lua's own C function, by
   `front`, keeping Lua's function in `slot` (see bm_lua_function); leaves t
   alone when the field is something else. */
void bm_put_front_end(lua_State *L, const char *name, lua_CFunction front, lua_CFunction *slot);

/* Replaces `setmetatable` in the table on top of the stack (the globals)
   with the one that runs finalizers under the limits. */
void bm_sandbox_finalizers(lua_State *L);

/* ------------------------------------------------------------------------ */
/* Error messages (error_messages.c)                                         */
/* ------------------------------------------------------------------------ */

/* Replaces the value at `idx` by the message of the limit the allocator last
   refused a block for, when the value is Lua's memory-error string. Pushes
   at most two values; allocates nothing. */
void bm_name_refused_limit(lua_State *L, int idx);

/* Makes the error value at `idx` of L, raised on `co` (whose stack is read
   from `first_level` up), say what it should: a refused limit named, the
   nearest script position instead of the bm module's, the resolution chain
   of a stack overflow through bm.resolve. The stack levels read are charged. */
void bm_explain_error(lua_State *L, lua_State *co, int idx, int first_level);

/* ------------------------------------------------------------------------ */
/* Protected calls (protected_calls.c)                                       */
/* ------------------------------------------------------------------------ */

/* Replaces pcall and xpcall (with BM_LIB_BASE) and coroutine.resume and
   coroutine.close (with BM_LIB_COROUTINE) by versions whose caught errors
   name a refused limit, a script position and a resolution chain. */
void bm_sandbox_protected_calls(lua_State *L, int flags);

/* Replaces coroutine.yield and coroutine.wrap in the coroutine table at
   `co` (coroutines.c). After the protected calls: wrap resumes with Lua's
   resume, kept by the sandbox's. */
void bm_sandbox_coroutines(lua_State *L, int co);

/* Makes the table of resumers (every state, with or without the coroutine
   library: the host's coroutines are marked in it). */
void bm_sandbox_resumers(lua_State *L);

/* Records the running thread as the resumer of the coroutine at `co`;
   returns 0 (and records nothing) for a coroutine the host runs, which no
   script may resume. */
int bm_note_resumer(lua_State *L, int co);

/* Whether the coroutine at `co` is one the host runs. */
int bm_is_host_coroutine(lua_State *L, int co);

/* Yields the values from `first` up (a waiting call's marker and pending
   call, come back from a coroutine this C function resumed), with `k` to
   resume that coroutine again. */
int bm_pass_wait_up(lua_State *L, int first, lua_KFunction k);

/* ------------------------------------------------------------------------ */
/* Chunk texts (chunk_texts.c)                                               */
/* ------------------------------------------------------------------------ */

/* Records the string at `text` as the text of the chunk named by the string
   at `name` (only names starting with '@'); a name recorded with another
   text becomes ambiguous. May raise (it allocates). */
void bm_chunk_text_note(lua_State *L, int name, int text);

/* Replaces `load` in the table on top of the stack (the globals) with one
   that records the text of each string chunk it compiles. */
void bm_sandbox_chunk_texts(lua_State *L);

#endif /* BLOODMAGIC_SANDBOX_INTERNAL_H */
