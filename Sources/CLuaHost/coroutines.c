/*
 * coroutines.c: see bm_coroutines.h.
 */
#include <string.h>
#include "sandbox_internal.h"
#include "bm_continuations.h"

int bm_is_swift_entry(lua_CFunction fn) {
    return fn == bm_trampoline || fn == bm_box_trampoline || fn == bm_finalizer_trampoline
        || fn == bm_exposed_method || fn == bm_exposed_index || fn == bm_exposed_newindex;
}

/* Describes the call at `ar` (its "n" fields): "the Swift function 'name'",
   "a Swift metamethod (__index of an exposed object)", ... pushed. */
static void push_call_name(lua_State *L, const lua_Debug *ar, int swift) {
    const char *kind = swift ? "Swift" : "C";
    if (ar->namewhat != NULL && strcmp(ar->namewhat, "metamethod") == 0 && ar->name != NULL) {
        lua_pushfstring(L, "the %s metamethod '__%s'%s", kind, ar->name,
                        swift ? " of an exposed Swift object" : "");
    } else if (ar->name != NULL) {
        lua_pushfstring(L, "the %s function '%s'", kind, ar->name);
    } else {
        lua_pushfstring(L, "a %s function", kind);
    }
}

__attribute__((noinline, cold)) int bm_refuse_yield(lua_State *L, const char *what) {
    (void)lua_checkstack(L, 6);
    luaL_where(L, 1);
    int where = lua_gettop(L);
    if (lua_pushthread(L)) {
        lua_pushfstring(L, "%s: attempt to yield from outside a coroutine (only code running in a coroutine can "
                        "wait)", what);
        lua_remove(L, -2);
        lua_concat(L, 2);
        return lua_error(L);
    }
    lua_pop(L, 1);
    /* The nearest Swift entry below the caller is the call that cannot be
       suspended (Swift calls Lua without a continuation); with none, the
       nearest C function other than a protected call. */
    lua_Debug ar, first_c;
    int found_c = 0, found_swift = 0;
    for (int level = 1; level < 200 && lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Snf", &ar)) continue;
        lua_CFunction fn = lua_tocfunction(L, -1);
        lua_pop(L, 1);
        if (ar.what == NULL || strcmp(ar.what, "C") != 0) continue;
        if (bm_is_swift_entry(fn)) {
            found_swift = 1;
            break;
        }
        /* A continuing Swift function calls with a continuation: never the reason. */
        if (fn == bm_continuing_trampoline) continue;
        if (!found_c && !(ar.name != NULL && (strcmp(ar.name, "pcall") == 0 || strcmp(ar.name, "xpcall") == 0))) {
            first_c = ar;
            found_c = 1;
        }
    }
    if (found_swift) {
        push_call_name(L, &ar, 1);
        lua_pushfstring(L, "%s: cannot wait here: this Lua code was called by %s, and a call from Swift cannot "
                        "be suspended (only Lua code, and bm calls that stay in Lua such as bm.resolve of a Lua "
                        "instance initializer or a Lua class's property, can wait)", what, lua_tostring(L, -1));
        lua_remove(L, -2);
    } else if (found_c) {
        push_call_name(L, &first_c, 0);
        lua_pushfstring(L, "%s: attempt to yield across a C-call boundary (%s called this Lua code and cannot be "
                        "suspended)", what, lua_tostring(L, -1));
        lua_remove(L, -2);
    } else {
        lua_pushfstring(L, "%s: attempt to yield across a C-call boundary", what);
    }
    lua_pushvalue(L, where);
    lua_insert(L, -2);
    lua_concat(L, 2);
    return lua_error(L);
}

/* coroutine.yield(...): Lua's, with the refusal above when it cannot. */
static int sandbox_yield(lua_State *L) {
    if (__builtin_expect(lua_isyieldable(L), 1)) return lua_yield(L, lua_gettop(L));
    return bm_refuse_yield(L, "coroutine.yield");
}


/* ------------------------------------------------------------------------ */
/* Who resumed whom: the chain a waiting call goes up                        */
/* ------------------------------------------------------------------------ */

const char bm_wait_marker = 0;

/* The registry key of the table { [coroutine] = the thread that resumed it
   last through the sandbox's resume or wrap, or true: run by the host },
   with weak keys (made at install, so that reading it never allocates). */
static const char resumers_key = 0;

static void push_resumers(lua_State *L) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &resumers_key);
}

int bm_note_resumer(lua_State *L, int co) {
    co = lua_absindex(L, co);
    push_resumers(L);
    if (lua_type(L, -1) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 1;
    }
    lua_pushvalue(L, co);
    if (lua_rawget(L, -2) == LUA_TBOOLEAN) {
        lua_pop(L, 2);
        return 0; /* the host's: no script resumes it */
    }
    lua_pop(L, 1);
    lua_pushvalue(L, co);
    lua_pushthread(L);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    return 1;
}

int bm_is_host_coroutine(lua_State *L, int co) {
    co = lua_absindex(L, co);
    push_resumers(L);
    int host = 0;
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_pushvalue(L, co);
        host = lua_rawget(L, -2) == LUA_TBOOLEAN;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return host;
}

void bm_mark_host_coroutine(lua_State *L) {
    push_resumers(L);
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_pushvalue(L, -2);
        lua_pushboolean(L, 1);
        lua_rawset(L, -3);
    }
    lua_pop(L, 1);
}

/* Raises, for the async function `name` called on `L`, unless every
   coroutine from `L` up can be suspended and the outermost is the host's. */
static void check_chain_can_wait(lua_State *L, const char *name) {
    if (!lua_isyieldable(L)) {
        if (lua_pushthread(L)) {
            lua_pop(L, 1);
            luaL_error(L, "%s: an async Swift function can only be called from a coroutine the host runs "
                          "asynchronously (LuaState.callAsync), not from code that runs synchronously", name);
        }
        lua_pop(L, 1);
        bm_refuse_yield(L, name);
    }
    (void)lua_checkstack(L, 4);
    push_resumers(L);
    int table = lua_gettop(L);
    lua_pushthread(L);
    for (int hops = 0; hops < 10000; hops++) {
        lua_pushvalue(L, -1);
        int type = lua_type(L, table) == LUA_TTABLE ? lua_rawget(L, table) : LUA_TNIL;
        if (type == LUA_TBOOLEAN) {
            lua_settop(L, table - 1);
            return;
        }
        lua_State *resumer = type == LUA_TTHREAD ? lua_tothread(L, -1) : NULL;
        if (resumer == NULL || !lua_isyieldable(resumer)) {
            int main = 0;
            if (resumer != NULL) {
                main = lua_pushthread(resumer);
                lua_pop(resumer, 1);
            }
            if (resumer == NULL || main) {
                luaL_error(L, "%s: an async Swift function cannot wait here: this coroutine was resumed by code "
                              "that runs synchronously (only a coroutine the host runs asynchronously, "
                              "LuaState.callAsync, and the coroutines it resumes can wait)", name);
            }
            luaL_error(L, "%s: an async Swift function cannot wait here: a coroutine.resume that leads to this "
                          "coroutine runs under a C or Swift call that cannot be suspended", name);
        }
        lua_remove(L, -2);
    }
    luaL_error(L, "%s: coroutines nested too deeply", name);
}

/* The values from `first` to the top (BM_WAIT_MARKER and a pending call)
   came back from a coroutine this C function resumed: yields them up, and
   `k` resumes that coroutine when this one is resumed. */
int bm_pass_wait_up(lua_State *L, int first, lua_KFunction k) {
    if (!lua_isyieldable(L)) {
        /* Checked before the call began waiting; a chain changed since
           cannot wait either. */
        lua_settop(L, first - 1);
        return luaL_error(L, "a coroutine waiting for an async Swift function cannot be resumed from here");
    }
    return lua_yieldk(L, lua_gettop(L) - first + 1, 0, k);
}

int bm_is_wait_marker(lua_State *L, int index) {
    return lua_type(L, index) == LUA_TLIGHTUSERDATA && lua_touserdata(L, index) == BM_WAIT_MARKER;
}

/* ------------------------------------------------------------------------ */
/* coroutine.wrap                                                            */
/* ------------------------------------------------------------------------ */

/* As Lua's auxwrap (upvalue 1: the coroutine, 2: Lua's resume), and a
   waiting call below goes up. */
static int wrapped_returned(lua_State *L, int status, lua_KContext ctx);

static int wrapped_call(lua_State *L) {
    int n = lua_gettop(L);
    bm_note_resumer(L, lua_upvalueindex(1));
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_rotate(L, 1, 2); /* resume, co, ... */
    lua_callk(L, n + 1, LUA_MULTRET, 0, wrapped_returned);
    return wrapped_returned(L, LUA_OK, 0);
}

static int wrapped_again(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    (void)ctx;
    lua_settop(L, 0); /* what the host resumed with is not used */
    return wrapped_call(L);
}

static int wrapped_returned(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    (void)ctx;
    if (lua_toboolean(L, 1)) {
        if (lua_gettop(L) >= 3 && bm_is_wait_marker(L, 2)) return bm_pass_wait_up(L, 2, wrapped_again);
        return lua_gettop(L) - 1;
    }
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int stat = lua_status(co);
    if (stat != LUA_OK && stat != LUA_YIELD) {
        stat = lua_resetthread(co); /* close its to-be-closed variables */
        lua_xmove(co, L, 1);
    }
    if (stat != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/* coroutine.wrap(f): upvalue 1 is Lua's resume. */
static int sandbox_wrap(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, wrapped_call, 2);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Async Swift functions                                                     */
/* ------------------------------------------------------------------------ */

static int async_yield(lua_State *L, int pending);

/* The continuation: the coroutine is resumed; Swift gives the outcome. */
static int async_resumed(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    int pending = (int)ctx;
    lua_settop(L, pending); /* what the resumer passed is not used */
    const bm_async_function *fn = (const bm_async_function *)lua_touserdata(L, lua_upvalueindex(1));
    lua_pushvalue(L, pending);
    bm_reserve_swift_stack(L);
    bm_swift_frame frame = bm_enter_swift(L);
    int n = fn->take(L, fn->object);
    int waiting = n == BM_WAIT;
    n = bm_leave_swift(L, frame, waiting ? 0 : n);
    if (waiting) {
        lua_settop(L, pending);
        return async_yield(L, pending);
    }
    return n;
}

static int async_yield(lua_State *L, int pending) {
    lua_pushlightuserdata(L, BM_WAIT_MARKER);
    lua_pushvalue(L, pending);
    return lua_yieldk(L, 2, (lua_KContext)pending, async_resumed);
}

static int async_trampoline(lua_State *L) {
    check_chain_can_wait(L, lua_tostring(L, lua_upvalueindex(2)));
    const bm_async_function *fn = (const bm_async_function *)lua_touserdata(L, lua_upvalueindex(1));
    bm_reserve_swift_stack(L);
    bm_swift_frame frame = bm_enter_swift(L);
    int n = fn->start(L, fn->object);
    bm_leave_swift(L, frame, n); /* raises the error of a refused call */
    return async_yield(L, lua_gettop(L));
}

void bm_push_async_function(lua_State *L, const char *name) {
    lua_pushstring(L, name);
    lua_pushcclosure(L, async_trampoline, 2);
}

/* ------------------------------------------------------------------------ */
/* The host's resume                                                         */
/* ------------------------------------------------------------------------ */

int bm_host_resume(lua_State *L, lua_State *co, int nargs, int *nresults, bm_run_budget *budget) {
    bm_limits *lim = bm_limits_of(L);
    int armed = 0;
    if (lim->run_depth == 0) {
        bm_start_run(lim);
        long long instructions = lim->configured_instruction_limit;
        long long time_ns = lim->configured_time_limit_ns;
        if (!budget->started) {
            budget->started = 1;
            budget->instructions_left = instructions;
            budget->deadline_ns = time_ns > 0 ? bm_now_ns() + time_ns : 0;
        }
        if (instructions > 0 || time_ns > 0) {
            /* A step of the run, with what the steps before left of it. */
            bm_arm_budget(L, lim, instructions, instructions > 0 ? budget->instructions_left : 0, time_ns,
                          budget->deadline_ns);
            lua_sethook(co, bm_count_hook, LUA_MASKCOUNT, lim->hook_step);
            armed = 1;
        }
    }
    lim->run_depth += 1;
    int saved = lim->swift_depth;
    lim->swift_depth = 0;
    lua_State *saved_current = lim->current;
    int status = lua_resume(co, L, nargs, nresults);
    lim->current = saved_current;
    lim->swift_depth = saved;
    lim->run_depth -= 1;
    if (armed) {
        if (lim->instruction_limit > 0) budget->instructions_left = lim->instructions_left;
        bm_disarm_budget(L, lim);
        lua_sethook(co, NULL, 0, 0);
    }
    if (status != LUA_OK && status != LUA_YIELD) {
        /* The error value goes to the main thread (the coroutine keeps its
           stack, for the traceback), where the run's end keeps its cause. */
        (void)lua_checkstack(L, 1);
        lua_xmove(co, L, 1);
        *nresults = 0;
    }
    if (__builtin_expect(lim->error_causes != 0, 0) && lim->run_depth == 0 && status != LUA_YIELD)
        bm_error_causes_run_ends(L, lim, status);
    return status;
}

void bm_push_coroutine_traceback(lua_State *L, lua_State *co) {
    (void)lua_checkstack(L, 2);
    luaL_traceback(L, co, NULL, 0);
}

/* ------------------------------------------------------------------------ */
/* Installing                                                                */
/* ------------------------------------------------------------------------ */

void bm_sandbox_coroutines(lua_State *L, int co) {
    lua_pushcfunction(L, sandbox_yield);
    lua_setfield(L, co, "yield");
    /* Lua's resume: the upvalue of the sandbox's (protected_calls.c). */
    if (lua_getfield(L, co, "resume") == LUA_TFUNCTION && lua_getupvalue(L, -1, 1) != NULL) {
        lua_pushcclosure(L, sandbox_wrap, 1);
        lua_setfield(L, co, "wrap");
    }
    lua_settop(L, co);
}

void bm_sandbox_resumers(lua_State *L) {
    bm_push_weak_table(L, 4, "k");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &resumers_key);
}
