@_spi(BloodMagicInternals) import BloodMagic
import CLua
import CLuaHost
import Synchronization

/// A Lua value (function, table, userdata, thread) held from Swift beyond the
/// stack, through the registry (`luaL_ref`).
///
/// The reference is released when the handle goes away, from any thread:
/// the handle only queues its slot, and the thread that holds the state
/// frees it at the next safe point: the next entry into the state, or the
/// next call of a Swift function from Lua (so a long run that makes and drops
/// many handles does not keep their values alive). A handle does not keep
/// its state alive.
public final class LuaReference: Sendable, Hashable, CustomStringConvertible {
    /// The registry slot.
    public let slot: Int32
    /// The Lua type of the referenced value (`LUA_TTABLE`, `LUA_TFUNCTION`, …).
    public let luaType: Int32
    let queue: LuaReleaseQueue

    init(slot: Int32, luaType: Int32, queue: LuaReleaseQueue) {
        self.slot = slot
        self.luaType = luaType
        self.queue = queue
    }

    deinit {
        queue.release(slot)
    }

    /// Whether this handle belongs to `state`.
    public func belongs(to state: LuaState) -> Bool {
        queue === state.releaseQueue
    }

    public static func == (lhs: LuaReference, rhs: LuaReference) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// `"<type> reference #slot"`.
    public var description: String {
        let name: String
        switch luaType {
        case LUA_TTABLE: name = "table"
        case LUA_TFUNCTION: name = "function"
        case LUA_TUSERDATA: name = "userdata"
        case LUA_TTHREAD: name = "thread"
        default: name = "value"
        }
        return "\(name) reference #\(slot)"
    }
}

/// Registry slots waiting to be released, filled from any thread.
///
/// Besides the Swift count, a queued slot sets the flag in the state's
/// limits block that the C trampolines read on every call of a Swift
/// function, so the thread that holds the state releases slots during a run
/// too (see `bm_enter_swift`). The block is only written under the lock, and
/// never after ``close()``.
@usableFromInline
final class LuaReleaseQueue: Sendable {
    private struct Pending {
        var slots: [Int32] = []
        var open = true
        /// The address of the limits block whose flag is set when slots
        /// wait (an address, so that the lock's state stays Sendable), or 0.
        var limitsAddress: UInt = 0
        var limits: UnsafeMutablePointer<bm_limits>? { UnsafeMutablePointer(bitPattern: limitsAddress) }
    }
    private let pending = Lock<Pending>(Pending())
    /// How many slots are queued, so that entering the state skips the lock
    /// when there is nothing to release.
    @usableFromInline let count = Atomic<Int>(0)

    /// Whether any slot is queued (one atomic load). A slot queued just after
    /// this answers false is released at the next safe point.
    @inlinable
    var hasPending: Bool { count.load(ordering: .acquiring) > 0 }

    /// Makes queued slots set the C flag of `limits`.
    func attach(_ limits: UnsafeMutablePointer<bm_limits>) {
        let address = UInt(bitPattern: limits)
        pending.withLock { $0.limitsAddress = address }
    }

    /// Queues `slot` for release, unless the state is already closed.
    func release(_ slot: Int32) {
        pending.withLock { state in
            if state.open {
                state.slots.append(slot)
                count.add(1, ordering: .releasing)
                if let limits = state.limits { bm_set_release_pending(limits, 1) }
            }
        }
    }

    /// Takes every queued slot.
    func drain() -> [Int32] {
        guard count.load(ordering: .acquiring) > 0 else { return [] }
        return pending.withLock { state in
            count.subtract(state.slots.count, ordering: .relaxed)
            if let limits = state.limits { bm_set_release_pending(limits, 0) }
            let slots = state.slots
            state.slots.removeAll(keepingCapacity: true)
            return slots
        }
    }

    /// Marks the state closed: later releases are dropped, and the limits
    /// block (about to be freed) is never touched again.
    func close() {
        pending.withLock { state in
            state.open = false
            state.slots.removeAll()
            if let limits = state.limits { bm_set_release_pending(limits, 0) }
            state.limitsAddress = 0
        }
    }
}
