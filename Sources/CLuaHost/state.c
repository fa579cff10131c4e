/*
 * state.c: see bm_state.h.
 */
#include <stdio.h>
#include <string.h>
#include "bm_state.h"

static int bm_panic(lua_State *L) {
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error object is not a string";
    fprintf(stderr, "PANIC: unprotected error in call to Lua API (%s)\n", msg);
    fflush(stderr);
    return 0; /* return to Lua to abort */
}

/* Warning functions, with the same control messages as lauxlib's. */
static void bm_warnf_on(void *ud, const char *message, int tocont);

static void bm_warnf_cont(void *ud, const char *message, int tocont);

static void bm_warnf_off(void *ud, const char *message, int tocont) {
    lua_State *L = (lua_State *)ud;
    if (!tocont && message[0] == '@' && strcmp(message + 1, "on") == 0)
        lua_setwarnf(L, bm_warnf_on, L);
}

static void bm_warnf_cont(void *ud, const char *message, int tocont) {
    lua_State *L = (lua_State *)ud;
    fputs(message, stderr);
    if (tocont) {
        lua_setwarnf(L, bm_warnf_cont, L);
    } else {
        fputs("\n", stderr);
        fflush(stderr);
        lua_setwarnf(L, bm_warnf_on, L);
    }
}

static void bm_warnf_on(void *ud, const char *message, int tocont) {
    lua_State *L = (lua_State *)ud;
    if (!tocont && message[0] == '@') {
        if (strcmp(message + 1, "off") == 0) lua_setwarnf(L, bm_warnf_off, L);
        return;
    }
    fputs("Lua warning: ", stderr);
    bm_warnf_cont(ud, message, tocont);
}

lua_State *bm_newstate(bm_limits *limits) {
    lua_State *L = lua_newstate(bm_counting_alloc, limits);
    if (L == NULL) return NULL;
    bm_set_limits(L, limits);
    lua_atpanic(L, bm_panic);
    lua_setwarnf(L, bm_warnf_off, L); /* warnings off by default, as lua.c */
    return L;
}

const char *bm_full_source(const lua_Debug *ar) {
    if (ar->source != NULL && (ar->source[0] == '@' || ar->source[0] == '=')) return ar->source + 1;
    return ar->short_src;
}

int bm_gc_kilobytes(lua_State *L) { return lua_gc(L, LUA_GCCOUNT); }

void bm_gc_collect(lua_State *L) { lua_gc(L, LUA_GCCOLLECT); }

void bm_push_weak_table(lua_State *L, int nrec, const char *mode) {
    lua_createtable(L, 0, nrec);
    lua_createtable(L, 0, 1);
    lua_pushstring(L, mode);
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
}
