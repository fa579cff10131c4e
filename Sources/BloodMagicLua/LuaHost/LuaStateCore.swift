import CLua
import CLuaHost

/// The part of a ``LuaState`` that only the thread inside it touches: the raw
/// `lua_State`, its limits block, and Swift-side tables (exposed types).
///
/// The limits block's `host` field points back here (unretained), so any
/// `lua_State` of this state — the main thread or a coroutine — leads to it.
@usableFromInline
final class LuaStateCore {
    /// The main thread.
    @usableFromInline let L: OpaquePointer
    /// The C limits block shared with the allocator and the count hook.
    @usableFromInline let limits: UnsafeMutablePointer<bm_limits>
    /// Handles dropped on other threads.
    @usableFromInline let releaseQueue: LuaReleaseQueue
    /// Registry reference of the metatable of boxed Swift functions.
    var functionBoxMetatable: Int32 = BM_LUA_NOREF
    /// Swift classes exposed to Lua (LuaBridge), and the identity cache.
    let exposedTypes = LuaExposedTypeRegistry()
    /// Chunk names (`@path`, `=name`) loaded here that Lua shows cut; see ``LuaChunkNames``.
    var longChunkNames: Set<[UInt8]> = []
    /// The texts the host loaded, by chunk name, for positions; see ``LuaChunkTexts``.
    var chunkTexts = LuaChunkTexts()
    /// What a script host did to this state from Swift (exposed types,
    /// globals), to do again in the fresh state of a reload.
    var hostSetup: [(LuaStack) -> Void] = []
    /// How many fields the last encoded value of each `Encodable` type
    /// wrote (``LuaEncoder``), so that its next table is made that size.
    /// One entry per Swift type the app encodes: scripts cannot add types.
    var encodedFieldCounts: [ObjectIdentifier: Int32] = [:]
    /// The context the next ``LuaDecoder`` walk reuses (see ``LuaDecodingContext``).
    var spareDecodingContext: LuaDecodingContext?
    /// The context the next ``LuaEncoder`` call reuses (see ``LuaEncodingContext``).
    var spareEncodingContext: LuaEncodingContext?
    /// Swift errors that Lua code holds as error objects (see ``LuaError/cause``).
    var errorCauses = LuaErrorCauses()
    /// Swift objects retained for Lua while the state closes (see
    /// ``LuaStack/retainForLua(_:)``), released once `lua_close` returns.
    private var retainedWhileClosing: [Unmanaged<AnyObject>] = []
    private var closed = false

    init?(releaseQueue: LuaReleaseQueue) {
        let limits = UnsafeMutablePointer<bm_limits>.allocate(capacity: 1)
        limits.initialize(to: bm_limits())
        limits.pointee.swift_depth = 1
        guard let L = bm_newstate(limits) else {
            limits.deallocate()
            return nil
        }
        self.L = L
        self.limits = limits
        self.releaseQueue = releaseQueue
        limits.pointee.current = L
        limits.pointee.host = Unmanaged.passUnretained(self).toOpaque()
        limits.pointee.drain_releases = drainReleasedReferences
        limits.pointee.release_error_causes = releaseErrorCausesAtRunEnd
        releaseQueue.attach(limits)
    }

    /// The thread whose Swift callback is running, or the main thread.
    @inlinable
    var currentThread: OpaquePointer {
        limits.pointee.current ?? L
    }

    /// The outermost entry into the state (the caller holds the gate):
    /// releases what other threads dropped, then hands out the main stack.
    /// Only an atomic load when nothing is queued.
    @inlinable
    func enter() -> LuaStack {
        if releaseQueue.hasPending { releasePending() }
        return LuaStack(L)
    }

    /// Releases the registry references that Swift handles dropped, using
    /// the stack of `thread` (the running one: the main thread at an entry,
    /// the caller's thread at a call of a Swift function). Never raises:
    /// `luaL_unref` writes existing registry slots, which allocates nothing.
    @usableFromInline
    func releasePending(on thread: OpaquePointer? = nil) {
        let refs = releaseQueue.drain()
        guard !refs.isEmpty else { return }
        let L = thread ?? self.L
        guard lua_checkstack(L, 2) != 0 else { return }
        for ref in refs {
            luaL_unref(L, LUA_REGISTRYINDEX, ref)
        }
    }

    /// Closes the state: finalizers run (under the limits, see
    /// `bm_close_state`), Swift boxes are released.
    func close() {
        guard !closed else { return }
        closed = true
        releaseQueue.close()
        bm_close_state(L)
        for object in retainedWhileClosing { object.release() }
        retainedWhileClosing = []
        errorCauses = LuaErrorCauses()
        limits.deinitialize(count: 1)
        limits.deallocate()
    }

    /// Keeps `object`, retained for a userdata made while the state closes,
    /// until `lua_close` returns: Lua runs no `__gc` for an object made then.
    func releaseAfterClose(_ object: Unmanaged<AnyObject>) {
        retainedWhileClosing.append(object)
    }

    /// The core of the state that `L` belongs to.
    static func of(_ L: OpaquePointer) -> LuaStateCore {
        Unmanaged<LuaStateCore>.fromOpaque(bm_limits_of(L).pointee.host).takeUnretainedValue()
    }
}

/// Called by the C trampolines (`bm_enter_swift`) when references wait to be
/// released: a safe point on the thread that holds the state.
private let drainReleasedReferences: @convention(c) (OpaquePointer?) -> Void = { L in
    guard let L else { return }
    LuaStateCore.of(L).releasePending(on: L)
}
