import CLua
import CLuaSandbox
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The Swift side of the prelude's resolution cache.
//
// The prelude keeps, per class and spelled property (and per type name for
// `bm.resolve`), what the registry would run: a Lua initializer function,
// a singleton's value, nothing at all, or "ask Swift" (Swift initializers,
// other hosts' functions, singletons not made yet). Each entry is tagged with
// the registry's generation, which `core.generation` reads lock-free on every
// resolution, so any change to the registry — from Lua or from Swift, on any
// thread — sends the next resolution back to Swift for a fresh answer.
//
// A cached Lua initializer is called straight from Lua, without the Swift
// cycle tracker. That is only done while the tracker of the calling thread is
// empty (`core.generation` says so), so a cycle the tracker finds never misses
// a step; cycles among Lua steps are found by the prelude's own stack.

extension BMModule {
    /// How the prelude may serve a (type, container) pair; the strings the
    /// prelude compares with.
    enum FastPath: String {
        /// Call the Lua initializer returned with it.
        case initializer = "init"
        /// Use the singleton value returned with it.
        case value
        /// Nothing is registered (lazy default, optional nil, or the error).
        case none
        /// Resolve through Swift.
        case slow
    }

    /// Pushes `core.generation`: a C function (no trampoline, no closure
    /// box) returning the registry's generation, whether the calling thread
    /// is inside a Swift-tracked resolution, and the running thread.
    func pushGenerationReader(_ lua: LuaStack) {
        lua.ensureSpace(4)
        pushGenerationSource(lua)
        bm_push_generation_reader(lua.pointer, resolvingOnThisThread)
    }

    /// `core.cached_resolve(cache, resolve)`: `bm.resolve` as a C function
    /// that serves current entries of `cache` (type name → `{ generation,
    /// init, value }`) itself and hands everything else to the Lua `resolve`.
    func makeCachedResolve(_ lua: LuaStack) throws -> Int32 {
        guard lua.type(at: 1) == LUA_TTABLE, lua.type(at: 2) == LUA_TFUNCTION else {
            throw BMError("cached_resolve: bad arguments")
        }
        lua.ensureSpace(5)
        pushGenerationSource(lua)
        lua_pushvalue(lua.pointer, 1)
        lua_pushvalue(lua.pointer, 2)
        bm_push_cached_resolve(lua.pointer)
        // Its frames are the steps an overflow's message lists (CLuaSandbox).
        lua_pushvalue(lua.pointer, -1)
        bm_sandbox_mark_resolve_step(lua.pointer)
        return 1
    }

    /// Pushes the generation source of the C functions: a box retaining the
    /// registry's generation counter (not the registry: the state must not
    /// keep the registry alive, see ``BMModule``), with the function that
    /// reads it after it.
    private func pushGenerationSource(_ lua: LuaStack) {
        lua.pushBox(generation, trailingBytes: MemoryLayout<bm_generation_fn>.size)
        bm_set_generation_reader(lua.pointer, registryGeneration)
    }

    /// `core.lookup(type, protocols, container, property)` →
    /// `generation, how, payload, hooks`: what a resolution of the type in
    /// the named Lua class (nil: no container, as `bm.resolve` without
    /// options) would run. `generation` is -1 when the answer must not be
    /// cached (a singleton not made yet).
    func lookup(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.spell"
        try BMScriptBudget.checkNames(lua, fname, [(1, "type"), (2, "protocols"), (3, "container"), (4, "property")])
        let (key, containerName): (SpellTypeKey, String?) = try BMModule.target(lua, fname: fname)
        let property: String? = try lua.argument(4, of: fname)
        let container = container(named: containerName, sender: nil)
        let registry = try liveRegistry()
        let peek = registry.peekInitializer(
            type: key, container: container, property: containerName == nil ? nil : property)
        var generation = Int64(truncatingIfNeeded: peek.generation)
        lua.ensureSpace(5)
        func finish(_ how: FastPath) -> Int32 {
            lua.push(how.rawValue)
            lua_rotate(lua.pointer, -2, 1)  // how below the payload
            lua.push(Int(generation))
            lua_rotate(lua.pointer, -3, 1)
            lua.push(peek.hooksMayApply)
            lua.push(peek.source)
            return 5
        }
        if peek.failed || (registry.log.mayReport && registry.log.isEnabled) {
            // Swift raises the error (an ambiguous type name) when asked.
            // With resolution events on, every resolution goes through
            // Swift, which reports it (see Registry.logger).
            if !peek.failed { generation = -1 }
            lua.pushNil()
            return finish(.slow)
        }
        guard let handle = peek.handle else {
            lua.pushNil()
            // A resolver may serve a property nothing is registered for:
            // Swift asks it (bm.resolve without a container asks none).
            return finish(containerName != nil && peek.resolversMayApply ? .slow : .none)
        }
        guard let function = luaInitializer(handle) else {
            lua.pushNil()
            return finish(.slow)
        }
        if peek.scope == .singleton {
            if let made = peek.existingSingleton, (try? crossing.push(made, lua)) != nil {
                return finish(.value)
            }
            generation = -1
            lua.pushNil()
            return finish(.slow)
        }
        lua.push(function)
        return finish(.initializer)
    }

    /// `core.live_frames(index_fn, objects, properties, threads, depth)`:
    /// which frames of the prelude's resolution stack belong to a resolution
    /// still running, as `{ [i] = true }`. A frame is live when its thread
    /// still runs an activation of the prelude's `__index` function (the
    /// prototype of `index_fn`) for that object and property; frames with no
    /// thread (resolutions under `pcall`) are always live. An error that
    /// unwound a resolution and was caught leaves its frame behind; this is
    /// how the prelude tells it apart from a real cycle.
    func liveFrames(_ lua: LuaStack) throws -> Int32 {
        let L = lua.pointer
        guard lua.type(at: 1) == LUA_TFUNCTION, lua.type(at: 2) == LUA_TTABLE, lua.type(at: 3) == LUA_TTABLE,
              lua.type(at: 4) == LUA_TTABLE else {
            throw BMError("live_frames: bad arguments")
        }
        let depth: Int = try lua.argument(5, of: "live_frames")
        lua.ensureSpace(8)
        var reference = lua_Debug()
        lua_pushvalue(L, 1)
        lua_getinfo(L, ">S", &reference)
        let line = reference.linedefined
        let source = reference.source
        let sourceLength = reference.srclen
        lua_createtable(L, Int32(clamping: max(0, min(depth, 1 << 16))), 0)
        let result = lua_gettop(L)
        guard depth > 0 else { return 1 }
        for index in 1...depth {
            lua_rawgeti(L, 4, lua_Integer(index))
            let thread = lua_tothread(L, -1)
            lua_settop(L, result)
            var live = true
            if let thread {
                lua_rawgeti(L, 2, lua_Integer(index))
                lua_rawgeti(L, 3, lua_Integer(index))
                live = isRunning(
                    L, thread: thread, line: line, source: source, sourceLength: sourceLength,
                    object: result + 1, property: result + 2)
                lua_settop(L, result)
            }
            if live {
                lua_pushboolean(L, 1)
                lua_rawseti(L, result, lua_Integer(index))
            }
        }
        return 1
    }

    /// Whether `thread` runs an activation of the function defined at
    /// `source:line` whose first two arguments are the values at `object`
    /// and `property` of `L`'s stack (on `L` itself, not counting the
    /// innermost activation: the resolution that asks).
    private func isRunning(
        _ L: OpaquePointer, thread: OpaquePointer, line: Int32, source: UnsafePointer<CChar>?, sourceLength: Int,
        object: Int32, property: Int32
    ) -> Bool {
        if thread != L {
            let status = lua_status(thread)
            // A coroutine that died of an error keeps its stack, but none of it runs.
            guard status == LUA_OK || status == LUA_YIELD else { return false }
        }
        // On the calling thread, the innermost activation is the one asking
        // (it has not pushed its frame yet).
        var skip = thread == L
        var level: Int32 = 0
        var activation = lua_Debug()
        while lua_getstack(thread, level, &activation) != 0 {
            level += 1
            guard lua_getinfo(thread, "S", &activation) != 0, activation.linedefined == line,
                  let source, let mine = activation.source, activation.srclen == sourceLength,
                  memcmp(source, mine, sourceLength) == 0 else { continue }
            if skip {
                skip = false
                continue
            }
            // Its arguments: (object, key).
            guard lua_checkstack(thread, 2) != 0, lua_checkstack(L, 2) != 0 else { return true }
            let objectName = lua_getlocal(thread, &activation, 1)
            let propertyName = lua_getlocal(thread, &activation, 2)
            let pushed: Int32 = (objectName != nil ? 1 : 0) + (propertyName != nil ? 1 : 0)
            guard pushed == 2 else {
                if pushed > 0 { lua_settop(thread, -pushed - 1) }
                continue
            }
            if thread != L { lua_xmove(thread, L, 2) }
            let same = lua_rawequal(L, -2, object) != 0 && lua_rawequal(L, -1, property) != 0
            lua_settop(L, -3)
            if same { return true }
        }
        return false
    }
}

/// Reads the registry generation counter a Swift box holds; called from C
/// (`bm_read_generation`), never raises.
private let registryGeneration: bm_generation_fn = { counter in
    guard let counter else { return 0 }
    return Unmanaged<GenerationCounter>.fromOpaque(counter)._withUnsafeGuaranteedRef { $0.current }
}

/// Whether the calling thread is inside a Swift-tracked resolution; called
/// from C (`bm_generation_reader`), never raises.
private let resolvingOnThisThread: bm_busy_fn = {
    Registry.isResolvingOnThisThread ? 1 : 0
}
