import CLua
import CLuaHost

// Swift errors carried through Lua as themselves (LuaError.cause): a Swift
// callback that fails raises an error object (bm_error_objects.h in
// CLuaHost) whose id keys the Swift error in this per-state side table; a
// protected call that fails with the object takes the error back out.

/// The Swift errors a state's Lua code holds as error objects, by id.
///
/// Only the thread inside the state touches it (the raise of a callback,
/// the failure of a protected call, the end of a run). None of its methods
/// calls Lua, so nothing Lua runs can find it in the middle of a change.
struct LuaErrorCauses {
    /// Bytes each entry is charged to the state's memory limit (through
    /// the size of its error object's block): its slot and the error's box.
    static let entryBytes = Int(BM_ERROR_OBJECT_SIZE)

    private var entries: [UInt64: any Error] = [:]
    /// Ids are never reused: an object whose entry was released (taken,
    /// collected, or its run ended) can never name another error.
    private var nextID: UInt64 = 1
    /// The count at which the next raise sweeps out the entries of objects
    /// Lua collected: twice what the last sweep left, so that sweeps cost
    /// a constant per raise, however many errors a script makes.
    private(set) var sweepAt = 64

    /// How many errors are kept.
    var count: Int { entries.count }

    /// The ids kept.
    var ids: Dictionary<UInt64, any Error>.Keys { entries.keys }

    /// Keeps `error`; returns its id (never 0).
    mutating func add(_ error: any Error) -> UInt64 {
        let id = nextID
        nextID += 1
        entries[id] = error
        return id
    }

    /// Removes and returns the error of `id`, if it is still kept.
    mutating func remove(_ id: UInt64) -> (any Error)? {
        entries.removeValue(forKey: id)
    }

    /// Removes the errors of `ids` (a sweep's) and sets the next sweep's count.
    mutating func removeSwept(_ ids: [UInt64]) {
        for id in ids { entries.removeValue(forKey: id) }
        sweepAt = max(64, 2 * entries.count)
    }

    /// Removes every error but the one of `keep` (0: none).
    mutating func removeAll(except keep: UInt64) {
        let kept = keep == 0 ? nil : entries[keep]
        entries.removeAll()
        if let kept { entries[keep] = kept }
        sweepAt = 64
    }
}

extension LuaStateCore {
    /// Keeps `error` for an error object.
    func keepErrorCause(_ error: any Error) -> UInt64 {
        let id = errorCauses.add(error)
        limits.pointee.error_causes = Int32(clamping: errorCauses.count)
        return id
    }

    /// Takes back the error of `id` (nil when it was released).
    func takeErrorCause(_ id: UInt64) -> (any Error)? {
        guard id != 0, let error = errorCauses.remove(id) else { return nil }
        limits.pointee.error_causes = Int32(clamping: errorCauses.count)
        return error
    }

    /// Releases every error but the one of `keep`: the run they were made
    /// in has ended.
    func releaseErrorCauses(except keep: UInt64) {
        errorCauses.removeAll(except: keep)
        limits.pointee.error_causes = Int32(clamping: errorCauses.count)
    }
}

/// Called by `bm_call_at` when a top-level run ends while errors are kept:
/// all but the one the run failed with (which `popError` takes next) go.
let releaseErrorCausesAtRunEnd: @convention(c) (OpaquePointer?, UInt64) -> Void = { L, keep in
    guard let L else { return }
    LuaStateCore.of(L).releaseErrorCauses(except: keep)
}

extension LuaStack {
    /// Makes the error value of a callback that failed with `cause`: an
    /// error object whose message is `message` (with the caller's
    /// `file:line: ` in front when `positioned`), and returns the sentinel
    /// that raises it. Called by ``raise(_:)`` with an empty stack.
    func raiseCarrying(_ cause: any Error, message: String, positioned: Bool) -> Int32 {
        ensureSpace(4)
        let core = self.core
        if core.errorCauses.count >= core.errorCauses.sweepAt { sweepErrorCauses() }
        push(message)
        if positioned {
            bm_where(L)
            lua_insert(L, -2)
            lua_concat(L, 2)
        }
        bm_push_error_object(L, core.keepErrorCause(cause))
        return BM_RAISE
    }

    /// Releases the errors whose objects Lua has collected. Linear in the
    /// errors kept; a raise calls it when they have doubled since the last
    /// sweep, so its cost per raise is constant.
    func sweepErrorCauses() {
        let core = self.core
        var collected: [UInt64] = []
        for id in core.errorCauses.ids where bm_error_object_alive(L, id) == 0 {
            collected.append(id)
        }
        core.errorCauses.removeSwept(collected)
        limitsBlock.pointee.error_causes = Int32(clamping: core.errorCauses.count)
    }

    /// When the value at `index` is an error object: its message and the
    /// Swift error it carries (nil once released), which it then no longer
    /// carries. Nil for any other value.
    func takeErrorObject(at index: Int32) -> (message: String, cause: (any Error)?)? {
        ensureSpace(1)
        guard bm_push_error_message(L, index) != 0 else { return nil }
        let message = expandedDisplayString(at: -1) ?? ""
        lua_settop(L, -2)
        return (message, core.takeErrorCause(bm_error_object_take(L, index)))
    }

    /// How many Swift errors the state's Lua code holds: error objects not
    /// yet collected (as far as Lua's last collection knows), taken, or
    /// released at the end of their run.
    var carriedErrorCount: Int {
        sweepErrorCauses()
        return core.errorCauses.count
    }
}
