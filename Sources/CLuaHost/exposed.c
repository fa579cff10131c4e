/*
 * exposed.c: see bm_exposed.h.
 */
#include "bm_exposed.h"

int bm_exposed_method(lua_State *L) {
    const bm_exposed_binding *b = (const bm_exposed_binding *)lua_touserdata(L, lua_upvalueindex(1));
    bm_exposed_object *self = bm_exposed_check(L, 1, b->tag);
    return bm_exposed_call(L, b->entry, self ? self->object : NULL, b->tag, b->member);
}

int bm_exposed_index(lua_State *L) {
    /* The VM calls this with exactly (object, key); as few API calls as
       possible: the lookup replaces the key, so the value found is on top
       (and under the getter's result). Called any other way (only possible
       through the debug library), the stack is first made (object, key). */
    if (lua_gettop(L) != 2) lua_settop(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TUSERDATA) return 1;
    const bm_exposed_binding *p = (const bm_exposed_binding *)lua_touserdata(L, -1);
    bm_exposed_object *self = bm_exposed_check(L, 1, p->tag);
    if (p->stored_kind != BM_STORED_NONE && self != NULL && self->object != NULL) {
        /* The object is alive (its userdata is argument 1) and of the type
           the offset was found for, or a subclass, which keeps its layout.
           One push: within the LUA_MINSTACK slots every C call starts with. */
        const char *field = (const char *)self->object + p->stored_offset;
        switch (p->stored_kind) {
        case BM_STORED_INT64: lua_pushinteger(L, (lua_Integer)*(const int64_t *)field); return 1;
        case BM_STORED_DOUBLE: lua_pushnumber(L, (lua_Number)*(const double *)field); return 1;
        case BM_STORED_BOOL: lua_pushboolean(L, *(const unsigned char *)field != 0); return 1;
        default: break;
        }
    }
    return bm_exposed_call(L, p->entry, self ? self->object : NULL, p->tag, p->member);
}

int bm_exposed_newindex(lua_State *L) {
    lua_settop(L, 3);
    lua_pushvalue(L, 2);
    void *member = NULL;
    if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TUSERDATA)
        member = ((const bm_exposed_binding *)lua_touserdata(L, -1))->member;
    const bm_exposed_binding *b = (const bm_exposed_binding *)lua_touserdata(L, lua_upvalueindex(2));
    lua_settop(L, 3);
    bm_exposed_object *self = bm_exposed_check(L, 1, b->tag);
    return bm_exposed_call(L, b->entry, self ? self->object : NULL, b->tag, member);
}

int bm_exposed_equal(lua_State *L) {
    int same = 0;
    if (lua_type(L, 1) == LUA_TUSERDATA && lua_type(L, 2) == LUA_TUSERDATA
        && lua_rawlen(L, 1) == sizeof(bm_exposed_object) && lua_rawlen(L, 2) == sizeof(bm_exposed_object)) {
        bm_exposed_object *a = (bm_exposed_object *)lua_touserdata(L, 1);
        bm_exposed_object *b = (bm_exposed_object *)lua_touserdata(L, 2);
        same = a->tag != NULL && b->tag != NULL && a->object != NULL && a->object == b->object;
    }
    lua_pushboolean(L, same);
    return 1;
}

void bm_push_exposed_stored_binding(lua_State *L, bm_exposed_entry fn, const void *tag, void *member,
                                                  int kind, ptrdiff_t offset) {
    bm_exposed_binding *b = (bm_exposed_binding *)lua_newuserdatauv(L, sizeof(bm_exposed_binding), 0);
    b->entry = fn;
    b->tag = tag;
    b->member = member;
    b->stored_kind = kind;
    b->stored_offset = offset;
}

void bm_push_exposed_binding(lua_State *L, bm_exposed_entry fn, const void *tag, void *member) {
    bm_push_exposed_stored_binding(L, fn, tag, member, BM_STORED_NONE, 0);
}

void bm_push_exposed_method(lua_State *L, bm_exposed_entry fn, const void *tag, void *member) {
    bm_push_exposed_binding(L, fn, tag, member);
    lua_pushcclosure(L, bm_exposed_method, 1);
}

void bm_push_exposed_index(lua_State *L, int members) {
    lua_pushvalue(L, members);
    lua_pushcclosure(L, bm_exposed_index, 1);
}

void bm_push_exposed_newindex(lua_State *L, int members, const void *tag, bm_exposed_entry fn) {
    members = lua_absindex(L, members);
    lua_pushvalue(L, members);
    bm_push_exposed_binding(L, fn, tag, NULL);
    lua_pushcclosure(L, bm_exposed_newindex, 2);
}
