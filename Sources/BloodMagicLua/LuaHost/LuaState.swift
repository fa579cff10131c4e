@_spi(BloodMagicInternals) import BloodMagic
import CLua
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A Lua 5.4 state that Swift can share between threads.
///
/// All work on the state happens inside ``withStack(_:)``, which lets one
/// thread in at a time. The same thread may come back in while it is already
/// inside (a Swift callback called from Lua that needs the state again), which
/// is safe because Lua calls nest like a stack. Another thread waits.
///
/// ```swift
/// let state = try LuaState(limits: LuaLimits(maxInstructions: 1_000_000))
/// let sum: Int = try state.withStack { lua in
///     try lua.load("return 1 + 2", name: "=sum")
///     try lua.call(arguments: 0, results: 1)
///     defer { lua.pop() }
///     return try lua.value(at: -1)
/// }
/// ```
public final class LuaState: Sendable {
    /// Serializes threads. Held for the whole outermost `withStack`.
    /// A bare `Mutex` rather than the package's `Lock`, because inlinable
    /// public code takes it; `owner`'s acquiring exchange gives
    /// ThreadSanitizer the edge it cannot see in the futex (see `withStack`).
    @usableFromInline let gate = Mutex<Void>(())  // lint: bare Mutex allowed
    /// The thread that holds `gate`, or 0. Only that thread ever stores its
    /// own id here, so "is it me?" is answered without a race.
    @usableFromInline let owner = Atomic<UInt>(0)
    /// The Lua state and the Swift data that goes with it.
    ///
    /// Invariant: only the thread recorded in `owner` touches `core`, and only
    /// between taking and releasing `gate`. That is what makes the class
    /// Sendable; this one field opts out of the compiler's check because the
    /// check cannot see the lock.
    @usableFromInline nonisolated(unsafe) let core: LuaStateCore
    /// Registry references dropped by Swift handles on any thread, released
    /// the next time the state is entered.
    let releaseQueue: LuaReleaseQueue

    /// The libraries this state opened.
    public let libraries: LuaLibraries

    /// Opens a state with the given libraries and limits.
    ///
    /// - Throws: ``LuaError`` when the state cannot be created or a library
    ///   fails to open.
    public init(libraries: LuaLibraries = .safe, limits: LuaLimits = .none) throws(LuaError) {
        let queue = LuaReleaseQueue()
        guard let core = LuaStateCore(releaseQueue: queue) else {
            throw LuaError(.outOfMemory, "cannot create a Lua state")
        }
        self.core = core
        self.releaseQueue = queue
        self.libraries = libraries
        let stack = LuaStack(core.L)
        stack.setLimits(limits)
        try stack.openLibraries(libraries)
    }

    deinit {
        core.close()
    }

    /// Runs `body` with exclusive use of the state.
    ///
    /// The ``LuaStack`` passed in is valid only inside `body`; do not keep it.
    /// Calls from other threads wait; a call from the thread already inside
    /// (for example from a Swift callback run by Lua) goes straight in.
    ///
    /// Inlinable so that each caller gets a copy specialized to its result
    /// type: entering the state then costs a thread id, an atomic load, an
    /// uncontended lock and the release-queue check, with no generic
    /// metadata or boxing on the way.
    @inlinable
    public func withStack<Result, Failure: Error>(
        _ body: (LuaStack) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let me = currentThreadID()
        if owner.load(ordering: .acquiring) == me {
            // Re-entry from a Swift callback: the thread already holds the gate.
            return try body(LuaStack(core.currentThread))
        }
        // The lock's closure must return a `sending` value, which a generic
        // result from `body` is not; the result goes out through a local.
        var result: Result?
        try gate.withLock { (_) throws(Failure) -> Void in
            // An exchange that acquires, pairing with the previous holder's
            // release store of 0 below: the state's memory is handed over by
            // an edge ThreadSanitizer can see. The gate alone orders it, but
            // on Linux a contended Mutex is handed over inside the kernel
            // (a priority-inheritance futex), which ThreadSanitizer cannot
            // see, and it then reports every access to the state as a race.
            _ = owner.exchange(me, ordering: .acquiring)
            defer { owner.store(0, ordering: .releasing) }
            let stack = core.enter()
            // Whatever the body leaves on the main stack is dropped on the way out.
            let top = lua_gettop(stack.L)
            defer { lua_settop(stack.L, top) }
            result = try body(stack)
        }
        return result.unsafelyUnwrapped
    }

    /// ``withStack(_:)`` with a value for the body passed beside it rather
    /// than captured: a capturing closure, once specialized into this
    /// function, takes its captures owned (a retain and a release of each
    /// on every call), where `context`, a trivial value such as a tuple of
    /// `Unmanaged` references the caller keeps alive, costs nothing. The
    /// path of every Swift property a Lua initializer serves.
    @inlinable
    func withStack<Context, Result, Failure: Error>(
        passing context: Context, _ body: (LuaStack, Context) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let me = currentThreadID()
        if owner.load(ordering: .acquiring) == me {
            return try body(LuaStack(core.currentThread), context)
        }
        // As in withStack(_:), which says why each step is there.
        var result: Result?
        try gate.withLock { (_) throws(Failure) -> Void in
            _ = owner.exchange(me, ordering: .acquiring)
            defer { owner.store(0, ordering: .releasing) }
            let stack = core.enter()
            let top = lua_gettop(stack.L)
            defer { lua_settop(stack.L, top) }
            result = try body(stack, context)
        }
        return result.unsafelyUnwrapped
    }

    /// The limits in force.
    public var limits: LuaLimits {
        withStack { $0.limits }
    }

    /// Changes the limits. A new instruction limit applies from the next top-level run.
    public func setLimits(_ limits: LuaLimits) {
        withStack { $0.setLimits(limits) }
    }

    /// Bytes the state holds now.
    public var memoryInUse: Int {
        withStack { $0.memoryInUse }
    }

    /// Compiles and runs `code`, returning what it returns.
    ///
    /// - Parameters:
    ///   - code: Lua source text (binary chunks are refused).
    ///   - name: the chunk name, in Lua's convention: `@path` for a file,
    ///     `=name` for a literal name.
    public func run(_ code: String, name: String = "=(load)") throws(LuaError) -> [LuaValue] {
        try withStack { (lua) throws(LuaError) -> [LuaValue] in
            try lua.load(code, name: name)
            return try lua.callReturningValues(arguments: 0)
        }
    }

    /// Compiles and runs the file at `path` (named `@path`), with `arguments`
    /// passed as `...`, returning what it returns.
    public func runFile(_ path: String, arguments: [String] = []) throws(LuaError) -> [LuaValue] {
        try withStack { (lua) throws(LuaError) -> [LuaValue] in
            try lua.loadFile(path)
            try lua.requireSpace(Int32(clamping: arguments.count))
            for argument in arguments { lua.push(argument) }
            return try lua.callReturningValues(arguments: Int32(clamping: arguments.count))
        }
    }
}

/// The thread id used to recognise re-entry.
@inlinable @inline(__always)
func currentThreadID() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}

