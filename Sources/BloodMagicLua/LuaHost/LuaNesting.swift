import CLua

/// How far Swift follows Lua tables, one limit for every walk of Lua values
/// (``LuaDecoder``, ``LuaPrettyPrinter``, preference values) and of values on
/// their way into Lua (``LuaEncoder``).
///
/// A script can build a table that contains itself, or one nested a hundred
/// thousand deep; a walk that followed either without a limit would recurse
/// until the process's stack overflowed. Every walk stops at a table that is
/// already one of its own ancestors (a cycle) and at ``maxDepth`` levels, and
/// reports either as an error that says where.
public enum LuaNesting {
    /// The most tables one walk follows, counting the outermost as 1.
    public static let maxDepth = 200
}

/// The tables a walk of Lua values is inside, outermost first: what the
/// cycle and depth checks look at.
struct LuaTableAncestry {
    /// Why a table cannot be entered.
    enum Refusal: Error {
        /// The table is one of its own ancestors.
        case cycle
        /// Entering it would pass ``LuaNesting/maxDepth``.
        case tooDeep
    }

    /// Each table entered, with the level it was entered at.
    private var tables: [(table: UnsafeRawPointer, level: Int)] = []

    /// How many tables the walk is inside.
    var depth: Int { tables.count }

    /// Enters the table at `index` of `L`, or says why not.
    ///
    /// - Parameter level: how deep the walk is by its own count (a decoder's
    ///   coding path), when the same table may be entered again at the same
    ///   level without a cycle (a `Decodable` wrapper that decodes its value
    ///   from the same table). Then only an ancestor entered at a smaller
    ///   level makes a cycle. Without it, any ancestor does.
    mutating func enter(_ L: OpaquePointer, at index: Int32, level: Int? = nil) throws(Refusal) {
        guard let pointer = lua_topointer(L, index) else { return }
        let level = level ?? tables.count
        if tables.contains(where: { $0.table == pointer && $0.level < level }) { throw .cycle }
        if tables.count >= LuaNesting.maxDepth { throw .tooDeep }
        tables.append((pointer, level))
    }

    /// Enters the table at `index` of `lua`'s stack, or says why not (see
    /// ``enter(_:at:level:)``).
    mutating func enter(_ lua: LuaStack, at index: Int32, level: Int? = nil) throws(Refusal) {
        try enter(lua.L, at: index, level: level)
    }

    /// Leaves the table entered last.
    mutating func leave() {
        tables.removeLast()
    }

    /// Leaves every table, keeping the storage (bounded by
    /// ``LuaNesting/maxDepth``) for the next walk.
    mutating func removeAll() {
        tables.removeAll(keepingCapacity: true)
    }
}

extension LuaTableAncestry.Refusal {
    /// What went wrong, for messages: "it contains itself" or "nested more than N deep".
    var reason: String {
        switch self {
        case .cycle: "the table contains itself (a cycle)"
        case .tooDeep: "tables nested more than \(LuaNesting.maxDepth) deep"
        }
    }
}
