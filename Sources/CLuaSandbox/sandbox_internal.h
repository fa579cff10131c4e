/*
 * sandbox_internal.h: what the files of the sandboxed library share.
 */
#ifndef BLOODMAGIC_SANDBOX_INTERNAL_H
#define BLOODMAGIC_SANDBOX_INTERNAL_H

#include <stddef.h>

#include "shim.h"
#include "lua_sandbox.h"

/* Units of work a loop gathers before it charges them and reads the clock
   (a few microseconds of work). */
#define BM_WORK_BATCH 4096

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

/* Replaces `setmetatable` in the table on top of the stack (the globals)
   with the one that runs finalizers under the limits. */
void bm_sandbox_finalizers(lua_State *L);

/* ------------------------------------------------------------------------ */
/* Protected calls (protected_calls.c)                                       */
/* ------------------------------------------------------------------------ */

/* Replaces pcall and xpcall (with BM_LIB_BASE) and coroutine.resume and
   coroutine.close (with BM_LIB_COROUTINE) by versions whose caught errors
   name a refused limit, a script position and a resolution chain. */
void bm_sandbox_protected_calls(lua_State *L, int flags);

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
