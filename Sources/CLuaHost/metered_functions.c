/*
 * metered_functions.c: front-ends that charge the work of Lua's own library
 * functions whose work grows with a string argument, or with the heap,
 * before they run (see bm_sandbox.h).
 *
 * Allocation is charged already (one unit per 64 bytes, bm_limits.h); these
 * functions work without allocating, or far more than they allocate:
 *
 *   - string.byte pushes one value per byte of its range: one unit each;
 *   - string.format reads its string arguments (`%.1s` measures a 4 MiB
 *     string with strlen and keeps one byte), string.pack measures them
 *     (`z`), string.unpack scans for the zero that ends a `z` string (to the
 *     end of the data when there is none, and then fails): one unit per 64
 *     bytes of what they may scan;
 *   - tonumber reads a string digit by digit, and load lexes its chunk (a
 *     long comment allocates nothing): one unit per byte, a reader
 *     function's pieces as they come;
 *   - collectgarbage("collect") walks the whole heap; "step" does up to its
 *     argument's worth of it; switching between incremental and
 *     generational mode walks it too: one unit per BM_HEAP_BYTES_PER_UNIT
 *     bytes of the state's memory (bm_limits `used`).
 *
 * Each front-end reads its arguments without raising, charges, and then
 * runs Lua's function in its own frame (bm_run_lua_function), so that
 * results and errors are Lua's. Work under BM_FREE_UNITS is not charged.
 */
/* memrchr, where glibc has it. */
#define _GNU_SOURCE
#include <limits.h>
#include <string.h>

#include "sandbox_internal.h"

/* Bytes of heap a full collection walks per unit of work (a collection of
   small objects takes up to about 0.4 ns a byte). */
#define BM_HEAP_BYTES_PER_UNIT 8
/* The part of the heap a basic collection step (collectgarbage("step") with
   no size) is charged for. */
#define BM_GC_BASIC_STEP_BYTES ((long long)64 << 10)

/* Lua's functions behind the front-ends (see bm_lua_function). */
static lua_CFunction stock_byte, stock_format, stock_pack, stock_unpack, stock_tonumber, stock_collectgarbage;

/* Lua's default start of a range: 1-based, 0 and anything before the start
   read as 1 (string.byte, string.unpack). */
static size_t start_of_range(lua_Integer position, size_t length) {
    lua_Integer p = bm_relative_position(position, length);
    return p < 1 ? 1 : (size_t)p;
}

/* string.byte(s [, i [, j]]): one unit per value it pushes (a range the
   stack cannot hold makes Lua raise "string slice too long" at once). */
static int sandbox_byte(lua_State *L) {
    lua_Integer i, j;
    if (lua_type(L, 1) == LUA_TSTRING && bm_optional_integer(L, 2, 1, &i) && bm_optional_integer(L, 3, i, &j)) {
        size_t length = lua_rawlen(L, 1);
        size_t first = start_of_range(i, length);
        lua_Integer end = bm_relative_position(j, length);
        size_t last = end > (lua_Integer)length ? length : (size_t)end;
        if (first <= last && last - first < BM_MOST_RESULTS) bm_charge_call(L, (long long)(last - first + 1));
    }
    return bm_run_lua_function(L, &stock_byte);
}

/* The bytes of the string arguments from `from` on. */
static long long string_argument_bytes(lua_State *L, int from) {
    long long bytes = 0;
    for (int arg = from, top = lua_gettop(L); arg <= top; arg++) {
        if (lua_type(L, arg) == LUA_TSTRING) bytes += (long long)lua_rawlen(L, arg);
    }
    return bytes;
}

/* string.format(fmt, ...) and string.pack(fmt, ...): what their string
   arguments (the format included) make them scan. */
static int sandbox_format(lua_State *L) {
    bm_charge_call(L, string_argument_bytes(L, 1) / BM_SCAN_BYTES_PER_UNIT);
    return bm_run_lua_function(L, &stock_format);
}

static int sandbox_pack(lua_State *L) {
    bm_charge_call(L, string_argument_bytes(L, 1) / BM_SCAN_BYTES_PER_UNIT);
    return bm_run_lua_function(L, &stock_pack);
}

/* The length of the end of s[0..length) after its last zero byte. */
static size_t zero_free_tail(const char *s, size_t length) {
#if defined(__GLIBC__)
    const char *zero = memrchr(s, '\0', length);
    return zero == NULL ? length : length - (size_t)(zero - s) - 1;
#else
    size_t tail = 0;
    while (tail < length && s[length - 1 - tail] != '\0') tail++;
    return tail;
#endif
}

/* string.unpack(fmt, s [, pos]). A `z` item that finds its zero pushes the
   string before it, whose bytes the allocator charges (or a short one);
   one that finds none has scanned to the end of the data and fails. Only
   the data after its last zero can be scanned that way, so that tail is
   charged when the format has a `z`. */
static int sandbox_unpack(lua_State *L) {
    lua_Integer pos;
    if (lua_type(L, 1) == LUA_TSTRING && lua_type(L, 2) == LUA_TSTRING && bm_optional_integer(L, 3, 1, &pos)) {
        size_t format_length, length;
        const char *format = lua_tolstring(L, 1, &format_length);
        const char *data = lua_tolstring(L, 2, &length);
        long long bytes = (long long)format_length;
        size_t from = start_of_range(pos, length) - 1;
        if (from < length && memchr(format, 'z', format_length) != NULL)
            bytes += (long long)zero_free_tail(data + from, length - from) * 2; /* scanned here, then by Lua */
        bm_charge_call(L, bytes / BM_SCAN_BYTES_PER_UNIT);
    }
    return bm_run_lua_function(L, &stock_unpack);
}

/* tonumber(v [, base]): a string is read byte by byte. */
static int sandbox_tonumber(lua_State *L) {
    if (lua_type(L, 1) == LUA_TSTRING) bm_charge_call(L, (long long)(lua_rawlen(L, 1) / BM_LOOP_BYTES_PER_UNIT));
    return bm_run_lua_function(L, &stock_tonumber);
}

/* A reader function's front-end for load (upvalue 1: the script's reader):
   each piece is charged as it is handed to the lexer. */
static int charged_reader(lua_State *L) {
    lua_settop(L, 0);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_call(L, 0, 1);
    if (lua_type(L, 1) == LUA_TSTRING) bm_charge_call(L, (long long)(lua_rawlen(L, 1) / BM_LOOP_BYTES_PER_UNIT));
    return 1;
}

/* load(chunk [, name [, mode [, env]]]): the sandbox's load (upvalue 2, a C
   function whose own upvalue is Lua's load, upvalue 1 here), run in this
   frame after the chunk is charged: a string up front, a reader function's
   pieces as they come. */
static int sandbox_load(lua_State *L) {
    int kind = lua_type(L, 1);
    if (kind == LUA_TSTRING) {
        bm_charge_call(L, (long long)(lua_rawlen(L, 1) / BM_LOOP_BYTES_PER_UNIT));
    } else if (kind == LUA_TFUNCTION) {
        lua_pushvalue(L, 1);
        lua_pushcclosure(L, charged_reader, 1);
        lua_replace(L, 1);
    }
    return lua_tocfunction(L, lua_upvalueindex(2))(L);
}

/* The heap a collection walks, in units of work. */
static long long heap_units(lua_State *L, long long most_bytes) {
    bm_limits *lim = bm_limits_of(L);
    long long used = lim != NULL ? (long long)lim->used : 0;
    if (most_bytes >= 0 && most_bytes < used) used = most_bytes;
    return used / BM_HEAP_BYTES_PER_UNIT;
}

/* collectgarbage([opt [, arg]]): the options that walk the heap are charged
   for it before they run. */
static int sandbox_collectgarbage(lua_State *L) {
    const char *option = lua_isnoneornil(L, 1) ? "collect" : lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : "";
    if (strcmp(option, "collect") == 0 || strcmp(option, "generational") == 0 || strcmp(option, "incremental") == 0) {
        bm_charge_call(L, heap_units(L, -1));
    } else if (strcmp(option, "step") == 0) {
        int isnum = 0;
        lua_Integer kilobytes = lua_isnoneornil(L, 2) ? 0 : lua_tointegerx(L, 2, &isnum);
        if (kilobytes < 0) kilobytes = 0;
        long long bytes = kilobytes > (LLONG_MAX >> 11) ? LLONG_MAX : (long long)kilobytes * 1024 + BM_GC_BASIC_STEP_BYTES;
        bm_charge_call(L, heap_units(L, bytes));
    }
    return bm_run_lua_function(L, &stock_collectgarbage);
}

void bm_put_front_end(lua_State *L, const char *name, lua_CFunction front, lua_CFunction *slot) {
    lua_pushstring(L, name);
    lua_pushvalue(L, -1);
    lua_CFunction lua_function = lua_rawget(L, -3) == LUA_TFUNCTION ? lua_tocfunction(L, -1) : NULL;
    /* Lua's functions have no upvalues; a front-end already there stays. */
    int upvalues = lua_function != NULL && lua_getupvalue(L, -1, 1) != NULL;
    lua_pop(L, upvalues ? 2 : 1);
    if (lua_function == NULL || lua_function == front || upvalues) {
        lua_pop(L, 1);
        return;
    }
    __atomic_store_n(slot, lua_function, __ATOMIC_RELAXED);
    lua_pushcfunction(L, front);
    lua_rawset(L, -3);
}

void bm_sandbox_metered_string_functions(lua_State *L) {
    bm_put_front_end(L, "byte", sandbox_byte, &stock_byte);
    bm_put_front_end(L, "format", sandbox_format, &stock_format);
    bm_put_front_end(L, "pack", sandbox_pack, &stock_pack);
    bm_put_front_end(L, "unpack", sandbox_unpack, &stock_unpack);
}

void bm_sandbox_metered_base_functions(lua_State *L) {
    bm_put_front_end(L, "tonumber", sandbox_tonumber, &stock_tonumber);
    bm_put_front_end(L, "collectgarbage", sandbox_collectgarbage, &stock_collectgarbage);
    /* load is the sandbox's text-only load, whose upvalue is Lua's load. */
    if (lua_getfield(L, -1, "load") != LUA_TFUNCTION || lua_tocfunction(L, -1) == NULL) {
        lua_pop(L, 1);
        return;
    }
    if (lua_getupvalue(L, -1, 1) == NULL) lua_pushvalue(L, -1); /* Lua's own load: no upvalue */
    lua_insert(L, -2);
    lua_pushcclosure(L, sandbox_load, 2);
    lua_setfield(L, -2, "load");
}
