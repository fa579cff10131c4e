/*
 * utf8_functions.c: utf8.len, codepoint, offset and codes for the sandbox.
 *
 * Lua's own functions do the work (so that results and errors are theirs,
 * in every Lua 5.4 release); front-ends charge it to the state's budget, one
 * unit per byte decoded or skipped (BM_LOOP_BYTES_PER_UNIT):
 *
 *   - utf8.len decodes its whole range: it runs Lua's function on slices of
 *     BM_UTF8_SLICE bytes, each charged before it runs, so the deadline is
 *     read between slices however long the string;
 *   - utf8.codepoint pushes one value per character of its range (at most
 *     what the stack holds): the range is charged before it runs;
 *   - utf8.offset moves over a number of characters that only the string's
 *     content bounds: what it moved is charged after it returns (one pass
 *     over the string at most, whose bytes were charged when it was made);
 *   - the iterator of utf8.codes skips the continuation bytes after the
 *     position it is given, a run as long as the string when a script calls
 *     it with a position of its own: utf8.codes returns a front-end of the
 *     iterator, which counts and charges the run first.
 *
 * Work under BM_FREE_UNITS is not charged: a script's usual calls keep the
 * instruction counts they always had.
 */
#include "sandbox_internal.h"

/* Bytes of the string that utf8.len hands to Lua's function at once. */
#define BM_UTF8_SLICE ((lua_Integer)1 << 16)

/* The bytes after a character's first one, 10xxxxxx. */
static int is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

/* Lua's functions behind the front-ends (see bm_lua_function), and the
   iterators utf8.codes returns, strict and lax. */
static lua_CFunction stock_len, stock_codepoint, stock_offset, stock_codes, stock_next_strict, stock_next_lax;

/*
 * utf8.len(s [, i [, j [, lax]]]). A slice ends before a byte that is not a
 * continuation byte: no character of a well-formed string crosses it, so
 * Lua's function counts the same characters, and finds the same first
 * error, slice by slice as over the whole range. Past six continuation bytes
 * (the longest sequence lax mode reads) the slice may end anywhere: Lua's
 * function fails inside such a run whichever slice holds it.
 */
static int sandbox_len(lua_State *L) {
    lua_CFunction len = bm_lua_function(&stock_len);
    lua_Integer i, j;
    if (lua_type(L, 1) != LUA_TSTRING || !bm_optional_integer(L, 2, 1, &i) || !bm_optional_integer(L, 3, -1, &j))
        return len(L);
    size_t length;
    const unsigned char *s = (const unsigned char *)lua_tolstring(L, 1, &length);
    lua_Integer first = bm_relative_position(i, length), last = bm_relative_position(j, length);
    /* Out of bounds: Lua's error. An empty range: nothing to count. */
    if (first < 1 || first > (lua_Integer)length + 1 || last > (lua_Integer)length || last < first) return len(L);
    if (last - first < BM_UTF8_SLICE) {
        bm_charge_call(L, (last - first + 1) / BM_LOOP_BYTES_PER_UNIT);
        return len(L);
    }
    lua_settop(L, 4); /* s, i, j, lax */
    lua_Integer count = 0;
    for (lua_Integer from = first; from <= last;) {
        lua_Integer to = from + BM_UTF8_SLICE - 1;
        if (to >= last) {
            to = last;
        } else {
            /* s[to] is the byte after the slice (1-based position to + 1). */
            for (int extra = 0; extra < 6 && to < last && is_continuation(s[to]); extra++) to++;
        }
        bm_charge_work(L, (to - from + 1) / BM_LOOP_BYTES_PER_UNIT, 1);
        lua_pushinteger(L, from);
        lua_replace(L, 2);
        lua_pushinteger(L, to);
        lua_replace(L, 3);
        int results = len(L);
        if (results != 1 || !lua_isinteger(L, -1)) return results; /* fail and the position */
        count += lua_tointeger(L, -1);
        lua_settop(L, 4);
        from = to + 1;
    }
    lua_pushinteger(L, count);
    return 1;
}

/* utf8.codepoint(s [, i [, j [, lax]]]): the range is charged (a range the
   stack cannot hold makes Lua raise "string slice too long" at once). */
static int sandbox_codepoint(lua_State *L) {
    lua_Integer i, j;
    if (lua_type(L, 1) == LUA_TSTRING && bm_optional_integer(L, 2, 1, &i)) {
        size_t length = lua_rawlen(L, 1);
        lua_Integer first = bm_relative_position(i, length);
        if (bm_optional_integer(L, 3, first, &j)) {
            lua_Integer last = bm_relative_position(j, length);
            if (first >= 1 && last <= (lua_Integer)length && last >= first && last - first < BM_MOST_RESULTS)
                bm_charge_call(L, (last - first + 1) / BM_LOOP_BYTES_PER_UNIT);
        }
    }
    return bm_run_lua_function(L, &stock_codepoint);
}

/* utf8.offset(s, n [, i]): Lua's function, then the bytes it moved over
   (from i to the position found, or to the end it reached) are charged. */
static int sandbox_offset(lua_State *L) {
    lua_CFunction offset = bm_lua_function(&stock_offset);
    lua_Integer n, i;
    int isnum = 0;
    if (lua_type(L, 1) != LUA_TSTRING || lua_type(L, 2) != LUA_TNUMBER) return offset(L);
    n = lua_tointegerx(L, 2, &isnum);
    size_t length = lua_rawlen(L, 1);
    if (!isnum || !bm_optional_integer(L, 3, n >= 0 ? 1 : (lua_Integer)length + 1, &i)) return offset(L);
    lua_Integer start = bm_relative_position(i, length);
    int results = offset(L);
    if (results < 1 || start < 1 || start > (lua_Integer)length + 1) return results;
    lua_Integer moved;
    if (lua_isinteger(L, -results)) {
        moved = lua_tointeger(L, -results) - start;
        if (moved < 0) moved = -moved;
    } else {
        moved = n > 0 ? (lua_Integer)length + 1 - start : start - 1; /* not found: it ran to an end */
    }
    bm_charge_call(L, moved / BM_LOOP_BYTES_PER_UNIT);
    return results;
}

/* The run of continuation bytes from byte `at` (0-based) of the string
   argument, which Lua's utf8.codes iterator skips before it reads the next
   character: counted and charged, with the deadline read as it goes. */
static void charge_continuation_run(lua_State *L) {
    lua_Integer at;
    int isnum = 0;
    if (lua_type(L, 1) != LUA_TSTRING || (at = lua_tointegerx(L, 2, &isnum), !isnum) || at < 0) return;
    size_t length;
    const unsigned char *s = (const unsigned char *)lua_tolstring(L, 1, &length);
    long long run = 0;
    for (size_t k = (size_t)at; k < length && is_continuation(s[k]); k++) {
        if (++run % (BM_WORK_BATCH * BM_LOOP_BYTES_PER_UNIT) == 0) bm_charge_work(L, BM_WORK_BATCH, 1);
    }
    bm_charge_call(L, (run % (BM_WORK_BATCH * BM_LOOP_BYTES_PER_UNIT)) / BM_LOOP_BYTES_PER_UNIT);
}

/* The front-ends of Lua's utf8.codes iterators: (s, i) -> Lua's results. */
static int sandbox_next_strict(lua_State *L) {
    charge_continuation_run(L);
    return bm_run_lua_function(L, &stock_next_strict);
}

static int sandbox_next_lax(lua_State *L) {
    charge_continuation_run(L);
    return bm_run_lua_function(L, &stock_next_lax);
}

/* utf8.codes(s [, lax]): Lua's, with the iterator it returns (strict, or lax
   when asked) replaced by its front-end above. */
static int sandbox_codes(lua_State *L) {
    int lax = lua_toboolean(L, 2);
    int results = bm_run_lua_function(L, &stock_codes);
    lua_CFunction next = results == 3 ? lua_tocfunction(L, -3) : NULL;
    if (next != NULL) {
        __atomic_store_n(lax ? &stock_next_lax : &stock_next_strict, next, __ATOMIC_RELAXED);
        lua_pushcfunction(L, lax ? sandbox_next_lax : sandbox_next_strict);
        lua_replace(L, -4);
    }
    return results;
}

void bm_sandbox_utf8_functions(lua_State *L) {
    bm_put_front_end(L, "len", sandbox_len, &stock_len);
    bm_put_front_end(L, "codepoint", sandbox_codepoint, &stock_codepoint);
    bm_put_front_end(L, "offset", sandbox_offset, &stock_offset);
    bm_put_front_end(L, "codes", sandbox_codes, &stock_codes);
}
