/*
 * table_functions.c: table.concat, insert, remove, move, unpack and sort for
 * the sandbox. Arguments, results and errors are those of Lua 5.4's table
 * library; each loop charges one unit of work per element to the state's
 * budget and reads the deadline as it goes, so that a huge range (an empty
 * table.move over 2^50 slots, a proxy with a huge __len) stops at the
 * instruction limit or the deadline.
 */
#include <limits.h>
#include <string.h>

#include "sandbox_internal.h"

/* What a non-table must provide through its metatable to stand for one. */
enum { NEEDS_READ = 1, NEEDS_WRITE = 2, NEEDS_LENGTH = 4 };

/* Pushes metatable field `key` raw and says whether it is set; `depth` is
   how far down the metatable sits once the key is pushed. */
static int metafield_set(lua_State *L, const char *key, int depth) {
    lua_pushstring(L, key);
    return lua_rawget(L, -depth) != LUA_TNIL;
}

/* Argument `arg` must be a table, or have the metamethods `needs` asks for. */
static void check_table_like(lua_State *L, int arg, int needs) {
    if (lua_type(L, arg) == LUA_TTABLE) return;
    int pushed = 1;
    if (lua_getmetatable(L, arg) &&
        (!(needs & NEEDS_READ) || metafield_set(L, "__index", ++pushed)) &&
        (!(needs & NEEDS_WRITE) || metafield_set(L, "__newindex", ++pushed)) &&
        (!(needs & NEEDS_LENGTH) || metafield_set(L, "__len", ++pushed))) {
        lua_pop(L, pushed);
        return;
    }
    luaL_checktype(L, arg, LUA_TTABLE); /* raises */
}

/* The length of argument `arg` (with __len), after checking it as above. */
static lua_Integer checked_length(lua_State *L, int arg, int needs) {
    check_table_like(L, arg, needs | NEEDS_LENGTH);
    return luaL_len(L, arg);
}

/* Work counted by a loop, charged every BM_WORK_BATCH units. */
typedef struct work_meter {
    lua_State *L;
    long long pending;
} work_meter;

static void meter_tick(work_meter *w) {
    if (++w->pending >= BM_WORK_BATCH) {
        bm_charge_work(w->L, w->pending, 1);
        w->pending = 0;
    }
}

static void meter_settle(work_meter *w) {
    bm_charge_work(w->L, w->pending, 0);
    w->pending = 0;
}

static int sandbox_insert(lua_State *L) {
    lua_Integer e = checked_length(L, 1, NEEDS_READ | NEEDS_WRITE);
    e = (lua_Integer)((lua_Unsigned)e + 1u); /* the first empty slot */
    lua_Integer position;
    switch (lua_gettop(L)) {
    case 2:
        position = e;
        break;
    case 3: {
        position = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)position - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        work_meter meter = {L, 0};
        for (lua_Integer i = e; i > position; i--) {
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
            meter_tick(&meter);
        }
        meter_settle(&meter);
        break;
    }
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, position);
    return 0;
}

/* The argument Lua names when table.remove's position is out of bounds
   (5.4.5 changed it from 1 to 2). */
#if LUA_VERSION_RELEASE_NUM >= 50405
#define BM_REMOVE_POSITION_ARG 2
#else
#define BM_REMOVE_POSITION_ARG 1
#endif

static int sandbox_remove(lua_State *L) {
    lua_Integer size = checked_length(L, 1, NEEDS_READ | NEEDS_WRITE);
    lua_Integer position = luaL_optinteger(L, 2, size);
    if (position != size)
        luaL_argcheck(L, (lua_Unsigned)position - 1u <= (lua_Unsigned)size, BM_REMOVE_POSITION_ARG,
                      "position out of bounds");
    lua_geti(L, 1, position);
    work_meter meter = {L, 0};
    for (; position < size; position++) {
        lua_geti(L, 1, position + 1);
        lua_seti(L, 1, position);
        meter_tick(&meter);
    }
    meter_settle(&meter);
    lua_pushnil(L);
    lua_seti(L, 1, position);
    return 1;
}

static int sandbox_move(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    int destination = !lua_isnoneornil(L, 5) ? 5 : 1;
    check_table_like(L, 1, NEEDS_READ);
    check_table_like(L, destination, NEEDS_WRITE);
    if (e >= f) {
        luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
        lua_Integer n = e - f + 1;
        luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
        work_meter meter = {L, 0};
        /* Ascending unless the ranges overlap with the destination above. */
        if (t > e || t <= f || (destination != 1 && !lua_compare(L, 1, destination, LUA_OPEQ))) {
            for (lua_Integer i = 0; i < n; i++) {
                lua_geti(L, 1, f + i);
                lua_seti(L, destination, t + i);
                meter_tick(&meter);
            }
        } else {
            for (lua_Integer i = n - 1; i >= 0; i--) {
                lua_geti(L, 1, f + i);
                lua_seti(L, destination, t + i);
                meter_tick(&meter);
            }
        }
        meter_settle(&meter);
    }
    lua_pushvalue(L, destination);
    return 1;
}

/* Appends element i of argument 1, which must be a string or a number. */
static void add_element(lua_State *L, luaL_Buffer *b, lua_Integer i) {
    lua_geti(L, 1, i);
    if (!lua_isstring(L, -1))
        luaL_error(L, "invalid value (%s) at index %I in table for 'concat'", luaL_typename(L, -1), (LUAI_UACINT)i);
    luaL_addvalue(b);
}

static int sandbox_concat(lua_State *L) {
    lua_Integer last = checked_length(L, 1, NEEDS_READ);
    size_t lsep;
    const char *sep = luaL_optlstring(L, 2, "", &lsep);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    last = luaL_optinteger(L, 4, last);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    work_meter meter = {L, 0};
    for (; i < last; i++) {
        add_element(L, &b, i);
        luaL_addlstring(&b, sep, lsep);
        meter_tick(&meter);
    }
    if (i == last) add_element(L, &b, i);
    meter_settle(&meter);
    luaL_pushresult(&b);
    return 1;
}

static int sandbox_unpack(lua_State *L) {
    lua_Integer i = luaL_optinteger(L, 2, 1);
    lua_Integer e = luaL_opt(L, luaL_checkinteger, 3, luaL_len(L, 1));
    if (i > e) return 0;
    lua_Unsigned n = (lua_Unsigned)e - (lua_Unsigned)i; /* one less than the count; cannot overflow */
    /* The work is known: charge it before the stack grows for it. */
    if (n < (unsigned int)INT_MAX) bm_charge_work(L, (long long)n + 1, 1);
    if (n >= (unsigned int)INT_MAX || !lua_checkstack(L, (int)(++n)))
        return luaL_error(L, "too many results to unpack");
    work_meter meter = {L, 0};
    for (; i < e; i++) {
        lua_geti(L, 1, i);
        if (++meter.pending >= BM_WORK_BATCH) {
            bm_charge_work(L, 0, 1); /* already paid for: only read the clock */
            meter.pending = 0;
        }
    }
    lua_geti(L, 1, e);
    return (int)n;
}

/* Strings longer than this make a sort pay per comparison (see sandbox_sort). */
#define BM_SORT_SHORT_STRING 256

/*
 * The work of `a < b` on two strings: Lua compares them with strcoll, piece
 * by piece between zero bytes, up to the end of the shorter one. One unit
 * per 64 bytes, and one per piece (each piece is a strcoll and a strlen).
 */
static long long string_comparison_units(lua_State *L, int a, int b) {
    size_t la, lb;
    const char *sa = lua_tolstring(L, a, &la);
    (void)lua_tolstring(L, b, &lb);
    size_t n = la < lb ? la : lb;
    if (n < BM_SORT_SHORT_STRING) return 0;
    long long pieces = 0;
    for (const char *p = sa, *end = sa + n; (p = memchr(p, '\0', (size_t)(end - p))) != NULL; p++) pieces++;
    return (long long)(n / BM_SCAN_BYTES_PER_UNIT) + pieces;
}

/*
 * The comparison table.sort makes, charged: upvalue 1 is the script's
 * comparator (nil for '<'), upvalue 2 the work not charged yet. With '<',
 * two long strings are charged for what comparing them scans.
 */
static int charged_comparison(lua_State *L) {
    long long *pending = (long long *)lua_touserdata(L, lua_upvalueindex(2));
    int less_than = lua_isnil(L, lua_upvalueindex(1));
    *pending += 1;
    if (less_than && lua_type(L, 1) == LUA_TSTRING && lua_type(L, 2) == LUA_TSTRING)
        *pending += string_comparison_units(L, 1, 2);
    if (*pending >= BM_WORK_BATCH) {
        long long units = *pending;
        *pending = 0;
        bm_charge_work(L, units, 1);
    }
    if (less_than) {
        lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_call(L, 2, 1);
    lua_pushboolean(L, lua_toboolean(L, -1));
    return 1;
}

/* Arrays up to this size are sorted with their work charged up front. */
#define BM_SORT_PREPAID_MAX 4096

/* Whether the array part 1..n of the table at 1 holds a string longer than
   BM_SORT_SHORT_STRING (n is at most BM_SORT_PREPAID_MAX). */
static int has_long_string(lua_State *L, long long n) {
    for (long long k = 1; k <= n; k++) {
        int long_string = lua_rawgeti(L, 1, k) == LUA_TSTRING && lua_rawlen(L, -1) > BM_SORT_SHORT_STRING;
        lua_pop(L, 1);
        if (long_string) return 1;
    }
    return 0;
}

/*
 * table.sort: Lua's own sort (upvalue 1), so that equal elements end up in
 * the same order. The arguments are checked here first, so that errors name
 * 'sort'. With no budget armed, or for a plain array of at most
 * BM_SORT_PREPAID_MAX elements (which pays n log n up front) that '<' does
 * not sort by long strings, Lua's sort runs as it is; otherwise every
 * comparison is charged (and with '<', what it scans of two long strings:
 * one comparison of two 4 MiB strings that differ only at the end scans
 * them whole, in C, where the count hook never runs).
 */
static int sandbox_sort(lua_State *L) {
    check_table_like(L, 1, NEEDS_READ | NEEDS_WRITE | NEEDS_LENGTH);
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 2);
    bm_limits *lim = bm_limits_of(L);
    int prepaid = lim == NULL || !bm_budget_armed(lim);
    if (!prepaid && lua_type(L, 1) == LUA_TTABLE) {
        if (luaL_getmetafield(L, 1, "__len") == LUA_TNIL) {
            long long n = (long long)lua_rawlen(L, 1);
            if (n <= BM_SORT_PREPAID_MAX && !(lua_isnil(L, 2) && has_long_string(L, n))) {
                long long work = n;
                for (long long k = n; k > 1; k >>= 1) work += n;
                bm_charge_work(L, work, 1);
                prepaid = 1;
            }
        } else {
            lua_pop(L, 1);
        }
    }
    long long *pending = NULL;
    if (!prepaid) {
        pending = (long long *)lua_newuserdatauv(L, sizeof(long long), 0); /* 3: stays until the end */
        *pending = 0;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    if (!prepaid) {
        lua_pushvalue(L, 3);
        lua_pushcclosure(L, charged_comparison, 2);
    }
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        /* Lua's sort adds the caller's position to this error, and the
           budget to a limit's error; called from here they have none, so put
           it back. */
        const char *message = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (message != NULL && (strcmp(message, "invalid order function for sorting") == 0
                                || strncmp(message, "instruction limit exceeded (", 28) == 0
                                || strncmp(message, "time limit exceeded (", 21) == 0)) {
            luaL_where(L, 1);
            lua_insert(L, -2);
            lua_concat(L, 2);
        }
        return lua_error(L);
    }
    if (pending != NULL) bm_charge_work(L, *pending, 0);
    return 0;
}

void bm_sandbox_table_functions(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"concat", sandbox_concat},
        {"insert", sandbox_insert},
        {"remove", sandbox_remove},
        {"move", sandbox_move},
        {"unpack", sandbox_unpack},
        {NULL, NULL},
    };
    luaL_setfuncs(L, functions, 0);
    lua_getfield(L, -1, "sort");
    lua_pushcclosure(L, sandbox_sort, 1);
    lua_setfield(L, -2, "sort");
}
