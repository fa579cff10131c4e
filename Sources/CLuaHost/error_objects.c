/*
 * error_objects.c: see bm_error_objects.h.
 */
#include "bm_error_objects.h"
#include "bm_state.h"

/* Registry keys (their addresses): the error objects' shared metatable,
   and the weak table of the objects alive, by id. */
static const char error_metatable_key = 0;
static const char live_objects_key = 0;

typedef struct bm_error_object {
    unsigned long long id; /* the side table's key in Swift; 0: carries nothing */
} bm_error_object;

_Static_assert(sizeof(bm_error_object) <= BM_ERROR_OBJECT_SIZE, "an error object holds its id");

/* The block of the error object at `idx`, or NULL. Needs 2 free slots. */
static bm_error_object *error_object_at(lua_State *L, int idx) {
    bm_error_object *block = (bm_error_object *)lua_touserdata(L, idx);
    if (block == NULL || lua_type(L, idx) != LUA_TUSERDATA || !lua_checkstack(L, 2)) return NULL;
    if (!lua_getmetatable(L, idx)) return NULL;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &error_metatable_key);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same ? block : NULL;
}

int bm_is_error_object(lua_State *L, int idx) {
    return error_object_at(L, idx) != NULL;
}

unsigned long long bm_error_object_take(lua_State *L, int idx) {
    bm_error_object *block = error_object_at(L, idx);
    if (block == NULL) return 0;
    unsigned long long id = block->id;
    block->id = 0;
    return id;
}

int bm_push_error_message(lua_State *L, int idx) {
    if (error_object_at(L, idx) == NULL) return 0;
    if (lua_getiuservalue(L, idx, 1) != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushliteral(L, "");
    }
    return 1;
}

/* Pushes the text of value `idx` for __concat: an error object's message,
   a string, or a number converted; raises for anything else, as `..`. */
static void push_concat_operand(lua_State *L, int idx) {
    if (bm_push_error_message(L, idx)) return;
    int kind = lua_type(L, idx);
    if (kind == LUA_TSTRING || kind == LUA_TNUMBER) {
        lua_pushvalue(L, idx);
        lua_tostring(L, -1);
        return;
    }
    luaL_error(L, "attempt to concatenate a %s value", luaL_typename(L, idx));
}

/* __tostring: (e) -> message. */
static int error_tostring(lua_State *L) {
    if (!bm_push_error_message(L, 1)) lua_pushliteral(L, "");
    return 1;
}

/* __concat: (a, b) -> text of a .. text of b. */
static int error_concat(lua_State *L) {
    push_concat_operand(L, 1);
    push_concat_operand(L, 2);
    lua_concat(L, 2);
    return 1;
}

/* __len: (e) -> the message's length in bytes. */
static int error_len(lua_State *L) {
    size_t length = 0;
    if (bm_push_error_message(L, 1)) lua_tolstring(L, -1, &length);
    lua_pushinteger(L, (lua_Integer)length);
    return 1;
}

/* A string method called on an error object (upvalue 1: the method): the
   object is replaced by its message, then the method runs. */
static int call_on_message(lua_State *L) {
    if (bm_push_error_message(L, 1)) lua_replace(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* __index: (e, key) -> the string method `key` bound to read the message
   (`e:find("x")` works as on the message), or nil. */
static int error_index(lua_State *L) {
    lua_settop(L, 2);
    lua_pushliteral(L, "");
    if (luaL_getmetafield(L, 3, "__index") != LUA_TTABLE) return 0; /* 4 */
    lua_pushvalue(L, 2);
    if (lua_gettable(L, 4) != LUA_TFUNCTION) return 0;
    lua_pushcclosure(L, call_on_message, 1);
    return 1;
}

/* Pushes the shared metatable; the first time, makes it and the weak table
   of the objects alive. */
static void push_error_metatable(lua_State *L) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &error_metatable_key) == LUA_TTABLE) return;
    lua_pop(L, 1);
    static const luaL_Reg metamethods[] = {
        {"__tostring", error_tostring},
        {"__concat", error_concat},
        {"__len", error_len},
        {"__index", error_index},
        {NULL, NULL},
    };
    lua_createtable(L, 0, 6);
    luaL_setfuncs(L, metamethods, 0);
    lua_pushliteral(L, BM_ERROR_OBJECT_NAME);
    lua_setfield(L, -2, "__name");
    lua_pushliteral(L, BM_ERROR_OBJECT_NAME);
    lua_setfield(L, -2, "__metatable");
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &error_metatable_key);
    /* The weak table { [id] = object }: an entry goes when Lua collects its
       object, as for any object without a finalizer (at once, even in an
       emergency collection). */
    bm_push_weak_table(L, 0, "v");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &live_objects_key);
}

void bm_push_error_object(lua_State *L, unsigned long long id) {
    /* The block is as large as what Swift keeps for it (BM_ERROR_OBJECT_SIZE):
       Lua's allocator charges the Swift error to the memory limit for as
       long as Lua holds the object, and gives the charge back when it
       collects it, emergency collections included. */
    bm_error_object *block = (bm_error_object *)lua_newuserdatauv(L, BM_ERROR_OBJECT_SIZE, 1);
    block->id = id;
    lua_insert(L, -2);           /* object, message */
    lua_setiuservalue(L, -2, 1); /* object */
    push_error_metatable(L);
    lua_setmetatable(L, -2);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &live_objects_key);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, (lua_Integer)id);
    lua_pop(L, 1);
}

int bm_error_object_alive(lua_State *L, unsigned long long id) {
    if (!lua_checkstack(L, 2)) return 1;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &live_objects_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 0;
    }
    int alive = lua_rawgeti(L, -1, (lua_Integer)id) != LUA_TNIL;
    lua_pop(L, 2);
    return alive;
}

__attribute__((noinline, cold)) void bm_error_causes_run_ends(lua_State *L, bm_limits *lim, int status) {
    unsigned long long keep = 0;
    if (status != LUA_OK && lua_gettop(L) >= 1) {
        bm_error_object *block = error_object_at(L, -1);
        if (block != NULL) keep = block->id;
    }
    if (lim->release_error_causes != NULL) lim->release_error_causes(L, keep);
}
