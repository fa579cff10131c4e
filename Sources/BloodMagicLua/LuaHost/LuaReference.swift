import CLua
import Synchronization

/// A Lua value (function, table, userdata, thread) held from Swift beyond the
/// stack, through the registry (`luaL_ref`).
///
/// The reference is released when the handle goes away, from any thread:
/// the handle only queues its slot, and the state frees it the next time it
/// is entered. A handle does not keep its state alive.
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
@usableFromInline
final class LuaReleaseQueue: Sendable {
    private let pending = Mutex<(slots: [Int32], open: Bool)>(([], true))
    /// How many slots are queued, so that entering the state skips the lock
    /// when there is nothing to release.
    @usableFromInline let count = Atomic<Int>(0)

    /// Whether any slot is queued (one atomic load). A slot queued just after
    /// this answers false is released at the next entry.
    @inlinable
    var hasPending: Bool { count.load(ordering: .acquiring) > 0 }

    /// Queues `slot` for release, unless the state is already closed.
    func release(_ slot: Int32) {
        pending.withLock { state in
            if state.open {
                state.slots.append(slot)
                count.add(1, ordering: .releasing)
            }
        }
    }

    /// Takes every queued slot.
    func drain() -> [Int32] {
        guard count.load(ordering: .acquiring) > 0 else { return [] }
        return pending.withLock { state in
            count.subtract(state.slots.count, ordering: .relaxed)
            let slots = state.slots
            state.slots.removeAll(keepingCapacity: true)
            return slots
        }
    }

    /// Marks the state closed: later releases are dropped.
    func close() {
        pending.withLock { state in
            state.open = false
            state.slots.removeAll()
        }
    }
}
