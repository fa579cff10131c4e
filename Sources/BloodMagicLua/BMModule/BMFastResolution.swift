import CLua
import CLuaHost
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
            throw LuaError(.usage, "cached_resolve: bad arguments")
        }
        lua.ensureSpace(5)
        pushGenerationSource(lua)
        lua_pushvalue(lua.pointer, 1)
        lua_pushvalue(lua.pointer, 2)
        bm_push_cached_resolve(lua.pointer)
        // Its frames are the steps an overflow's message lists (CLuaHost).
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
    /// `generation, how, payload, hooks, source`: what a resolution of the
    /// type in the named Lua class (nil: no container, as `bm.resolve`
    /// without options) would run, and the hooks of the same registry
    /// generation that follow it (a box for `core.run_hooks`, or false).
    /// `generation` is -1 when the answer must not be cached (a singleton
    /// not made yet, a reload's preview).
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
            // The hooks of this lookup's generation, for `core.run_hooks`
            // after the cached initializer ran (false: none apply).
            if let property, containerName != nil, let hooks = peek.lookup.hooks(for: property) {
                lua.pushBox(hooks)
            } else {
                lua.push(false)
            }
            lua.push(peek.source)
            return 5
        }
        if peek.failed || peek.decorated || peek.takesArguments || (registry.log.mayReport && registry.log.isEnabled) {
            // Swift raises the error (an ambiguous type name) when asked,
            // and runs the decorators of a decorated type.
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
        // Graph-scoped values are shared within one resolution by Swift's
        // tracking of it: with any registered, Lua initializers run through Swift.
        guard let function = luaInitializer(handle), !registry.usesGraphScope else {
            lua.pushNil()
            return finish(.slow)
        }
        if peek.scope != .instance {
            // A singleton's or custom scope's value, once made (a reset of its
            // scope moves the generation); a weak or graph scope's, never.
            guard peek.scope.keepsOneValue else {
                lua.pushNil()
                return finish(.slow)
            }
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
    /// thread (`false`: the main thread's resolutions under `pcall`) are
    /// always live, and a frame whose thread was collected (`nil`: the
    /// prelude holds threads weakly) never is. An error that
    /// unwound a resolution and was caught leaves its frame behind; this is
    /// how the prelude tells it apart from a real cycle.
    ///
    /// Each thread's stack is read once, whatever the number of frames on
    /// it, and only its top ``levelsRead`` levels (`lua_getstack` finds a
    /// level by following the call chain from the top, so reading `n`
    /// levels costs O(n²)): at most about half a million steps per thread,
    /// charged to the instruction budget as they go, where the walk per
    /// frame of the whole stack took minutes under a stack a script made
    /// deep on purpose. A frame whose activation lies deeper than that
    /// counts as ended: pruning a live frame only weakens the prelude's
    /// cycle check for that step (a real cycle then ends in Lua's C-stack
    /// overflow, whose message names the chain), while keeping a stale one
    /// would report a cycle that is not there.
    func liveFrames(_ lua: LuaStack) throws -> Int32 {
        let L = lua.pointer
        guard lua.type(at: 1) == LUA_TFUNCTION, lua.type(at: 2) == LUA_TTABLE, lua.type(at: 3) == LUA_TTABLE,
              lua.type(at: 4) == LUA_TTABLE else {
            throw LuaError(.usage, "live_frames: bad arguments")
        }
        let depth: Int = try lua.argument(5, of: "live_frames")
        lua.ensureSpace(8)
        var reference = lua_Debug()
        lua_pushvalue(L, 1)
        lua_getinfo(L, ">S", &reference)
        let prototype = PrototypeKey(line: reference.linedefined, source: reference.source, length: reference.srclen)
        lua_createtable(L, Int32(clamping: max(0, min(depth, 1 << 16))), 0)
        let result = lua_gettop(L)
        guard depth > 0 else { return 1 }
        var work = SwiftWorkMeter(lua)
        var running: [OpaquePointer: RunningActivations] = [:]
        for index in 1...depth {
            try work.add()
            // The threads are held weakly: nil (not false, which a frame
            // without a thread holds) is a coroutine collected meanwhile.
            let collected = lua_rawgeti(L, 4, lua_Integer(index)) == LUA_TNIL
            let thread = lua_tothread(L, -1)
            lua_settop(L, result)
            var live = !collected
            if let thread {
                lua_rawgeti(L, 2, lua_Integer(index))
                lua_rawgeti(L, 3, lua_Integer(index))
                // The frame's values stay in the prelude's tables: their
                // addresses name them for as long as this call runs.
                let key = ActivationKey(object: lua_topointer(L, result + 1), property: lua_topointer(L, result + 2))
                lua_settop(L, result)
                if let key {
                    if running[thread] == nil {
                        running[thread] = try activations(of: prototype, on: thread, asking: L, work: &work)
                    }
                    live = running[thread]!.mayRun(key)
                }
            }
            if live {
                lua_pushboolean(L, 1)
                lua_rawseti(L, result, lua_Integer(index))
            }
        }
        try work.flush()
        return 1
    }

    /// The levels of a thread's stack ``liveFrames(_:)`` reads, from the
    /// top: room for the deepest chain of nested steps the prelude allows
    /// (`MAX_DEPTH`, a few levels each) with plenty to spare.
    static let levelsRead: Int32 = 1024

    /// A Lua function's prototype, as `lua_getinfo` describes it.
    private struct PrototypeKey {
        let line: Int32
        let source: UnsafePointer<CChar>?
        let length: Int

        func matches(_ activation: lua_Debug) -> Bool {
            guard activation.linedefined == line, let source, let theirs = activation.source,
                  activation.srclen == length else { return false }
            return memcmp(source, theirs, length) == 0
        }
    }

    /// The object and property of an activation (or of a frame), by the
    /// addresses of the Lua values: the prelude's frame holds the very
    /// values its activation got as arguments.
    private struct ActivationKey: Hashable {
        let object: UnsafeRawPointer
        let property: UnsafeRawPointer

        /// Nil for a value without an address (not an object or a string).
        init?(object: UnsafeRawPointer?, property: UnsafeRawPointer?) {
            guard let object, let property else { return nil }
            self.object = object
            self.property = property
        }
    }

    /// The activations of the prelude's `__index` running on one thread.
    private struct RunningActivations {
        var keys: Set<ActivationKey> = []
        /// Some could not be read (no stack room): every frame counts as live.
        var unknown = false

        func mayRun(_ key: ActivationKey) -> Bool { unknown || keys.contains(key) }
    }

    /// The activations of `prototype` that `thread` runs in its top
    /// ``levelsRead`` levels, from one walk (on the asking thread `L`
    /// itself, not counting the innermost activation: the resolution that
    /// asks). A coroutine that died of an error keeps its stack, but none
    /// of it runs.
    private func activations(
        of prototype: PrototypeKey, on thread: OpaquePointer, asking L: OpaquePointer, work: inout SwiftWorkMeter
    ) throws -> RunningActivations {
        var found = RunningActivations()
        if thread != L {
            let status = lua_status(thread)
            guard status == LUA_OK || status == LUA_YIELD else { return found }
        }
        var skip = thread == L
        var level: Int32 = 0
        var activation = lua_Debug()
        while level < Self.levelsRead, lua_getstack(thread, level, &activation) != 0 {
            // One unit for the level, and one per 64 calls of the chain
            // that lua_getstack followed to find it.
            try work.add(1 + Int(level) / 64)
            level += 1
            guard lua_getinfo(thread, "S", &activation) != 0, prototype.matches(activation) else { continue }
            if skip {
                skip = false
                continue
            }
            // Its arguments: (object, key).
            guard lua_checkstack(thread, 2) != 0 else {
                found.unknown = true
                return found
            }
            let objectName = lua_getlocal(thread, &activation, 1)
            let propertyName = lua_getlocal(thread, &activation, 2)
            let pushed: Int32 = (objectName != nil ? 1 : 0) + (propertyName != nil ? 1 : 0)
            if pushed == 2,
               let key = ActivationKey(object: lua_topointer(thread, -2), property: lua_topointer(thread, -1)) {
                found.keys.insert(key)
            }
            if pushed > 0 { lua_settop(thread, -pushed - 1) }
        }
        return found
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
