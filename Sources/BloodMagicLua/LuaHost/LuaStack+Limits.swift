import CLua
import CLuaHost
import Foundation

// The limits of a state as Swift reads and sets them (the C side enforces
// them: bm_limits.h), and how their values are written in messages.

extension LuaStack {
    /// The limits in force.
    public var limits: LuaLimits {
        let block = limitsBlock.pointee
        return LuaLimits(
            maxMemory: block.memory_limit == 0 ? nil : Int(block.memory_limit),
            maxInstructions: block.configured_instruction_limit == 0 ? nil : Int(block.configured_instruction_limit),
            maxTime: block.configured_time_limit_ns == 0 ? nil : .nanoseconds(block.configured_time_limit_ns))
    }

    /// Changes the limits; instruction and time limits apply from the next top-level run.
    public func setLimits(_ limits: LuaLimits) {
        limitsBlock.pointee.memory_limit = limits.maxMemory.map { size_t(max(0, $0)) } ?? 0
        limitsBlock.pointee.configured_instruction_limit = Int64(max(0, limits.maxInstructions ?? 0))
        limitsBlock.pointee.configured_time_limit_ns = limits.maxTime.map(LuaLimits.nanoseconds) ?? 0
        // What a script's pcall gets for a refused allocation: the messages
        // an uncaught error has, made now (naming them then allocates nothing).
        ensureSpace(2)
        lua_createtable(L, 3, 0)
        for refused in [BM_REFUSED_MEMORY, BM_REFUSED_INSTRUCTIONS, BM_REFUSED_TIME] {
            push(Self.limitMessage(refused: Int32(refused), limitsBlock.pointee))
            lua_rawseti(L, -2, lua_Integer(refused))
        }
        bm_sandbox_set_limit_messages(L)
    }

    /// Bytes the state holds now.
    public var memoryInUse: Int { Int(limitsBlock.pointee.used) }

    /// The most bytes the state has held at once.
    public var peakMemory: Int { Int(limitsBlock.pointee.peak) }

    /// Whether the state is closing (its finalizers run from
    /// ``LuaState``'s deinit): what Swift kept for it may be gone.
    @inline(__always)
    var isClosing: Bool { limitsBlock.pointee.closing != 0 }
}

// What Swift does and keeps for a script, charged to the same budgets as
// the script's own allocations and instructions (the `bm` module's charges,
// BMScriptBudget.swift, say what and when).

extension LuaStack {
    /// Counts `bytes` that Swift keeps for the script as memory the state
    /// holds, and returns true; or, when they would pass the memory limit,
    /// counts nothing, marks the limit hit (as a refused allocation does)
    /// and returns false.
    @inline(__always)
    func chargeSwiftMemoryWithinLimit(_ bytes: Int) -> Bool {
        let block = limitsBlock
        let limit = Int(block.pointee.memory_limit)
        if limit != 0 && Int(block.pointee.used) + bytes > limit {
            block.pointee.memory_limit_hit = 1
            return false
        }
        block.pointee.used += size_t(bytes)
        if block.pointee.used > block.pointee.peak { block.pointee.peak = block.pointee.used }
        return true
    }

    /// Gives back bytes charged with ``chargeSwiftMemoryWithinLimit(_:)``.
    func releaseSwiftMemory(_ bytes: Int) {
        let block = limitsBlock
        block.pointee.used -= size_t(min(bytes, Int(block.pointee.used)))
    }

    /// Charges `units` of work that Swift does for the running script
    /// (about one VM instruction each) to its instruction budget and reads
    /// the deadline, as the sandbox's C functions do. Returns nil, or, when
    /// a budget is used up, the limit's message (`instruction limit
    /// exceeded (N instructions)`, or the time limit's). A no-op when no
    /// budget is armed.
    func chargeSwiftWorkWithinLimits(_ units: Int) -> String? {
        let which = bm_sandbox_charge_swift_work(pointer, Int64(units), 1)
        guard which != 0 else { return nil }
        let refused = Int(which) == Int(BM_LIMIT_TIME) ? BM_REFUSED_TIME : BM_REFUSED_INSTRUCTIONS
        return Self.limitMessage(refused: Int32(refused), limitsBlock.pointee)
    }
}

extension LuaLimits {
    /// A duration in whole nanoseconds, at least 1 and at most about 292 years.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return Int64.max / 2 }
        return max(1, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Seconds as Lua prints them (`%.14g`): `1`, `0.25`, `1.5`.
    static func formatSeconds(_ nanoseconds: Int64) -> String {
        String(format: "%.14g", Double(nanoseconds) / 1e9)
    }

    /// `16 MiB`, `512 KiB` or `100 bytes`.
    static func formatSize(_ bytes: Int) -> String {
        if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}

extension LuaStack {
    /// The kilobytes the state's heap holds, as Lua counts them.
    var heapKilobytes: Int { Int(bm_gc_kilobytes(L)) }

    /// A full garbage collection, made between runs (outside any run's
    /// budget): see `bm_gc_collect`. Finalizers run under their own budget.
    func collectGarbage() {
        bm_gc_collect(L)
    }
}
