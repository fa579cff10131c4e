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
