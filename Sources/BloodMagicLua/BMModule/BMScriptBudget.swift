/// What a script may make Swift keep through `bm`, outside Lua's allocator.
///
/// Names (types, protocols, containers, properties, keys, suites, classes,
/// spells, sources) are capped in size and read only after the check, so a
/// 1 MiB property name is an error that names the field, not 1 MiB kept by
/// the registry. Every registration is also charged to the state's memory
/// budget (``LuaLimits/maxMemory``) while it stays registered: a fixed cost
/// for the records Swift makes, plus its names and the `file:line` it keeps
/// (whose chunk name, which a script chooses, is capped); so many small
/// registrations hit the same limit as the script's own tables would.
enum BMScriptBudget {
    /// The longest name, in bytes.
    static let maxNameBytes = 1024
    /// The most protocols in one protocol list.
    static let maxProtocols = 64
    /// The largest preference value (a default or a stored value), counted
    /// as its strings' bytes plus 16 bytes per other value or table entry.
    static let maxPreferenceValueBytes = 1 << 20
    /// What one registration costs Swift besides its names (its record, the
    /// closure and the module's bookkeeping), charged to the memory budget.
    static let registrationCost = 512
    /// What one recorded `bm.class` declaration costs Swift besides its
    /// names (its record and the class's entry), charged the same way.
    static let classDeclarationCost = 256
    /// What one preference value a script stored costs besides its key and
    /// its ``PreferenceValue/budgetBytes`` (the store's entry), charged
    /// while the script's value stays stored.
    static let storedPreferenceCost = 64

    /// Checks the string arguments `fields` (index, field name) of a core
    /// function: nil or a string of at most ``maxNameBytes`` bytes; a table
    /// (a protocol list) holds at most ``maxProtocols`` such names. Other
    /// types are left for the argument's own conversion to report. Returns
    /// the bytes of the names, for the registration's charge.
    ///
    /// The field names are static strings (no reference counting while the
    /// list is walked) and are read only for an error: every registration
    /// and every `bm.resolve` passes here.
    @discardableResult
    static func checkNames(_ lua: LuaStack, _ fname: String, _ fields: [(Int32, StaticString)]) throws -> Int {
        var total = 0
        for index in fields.indices {
            let position = fields[index].0
            switch lua.valueType(at: position) {
            case .string:
                let length = lua.rawLength(at: position)
                guard length <= maxNameBytes else { throw tooLong(length, fname: fname, field: "\(fields[index].1)") }
                total += length
            case .table:
                total += try checkNameList(lua, at: position, fname: fname, field: fields[index].1)
            default:
                break
            }
        }
        return total
    }

    /// The names of a protocol list (a table at `index`).
    private static func checkNameList(_ lua: LuaStack, at index: Int32, fname: String, field: StaticString) throws -> Int {
        let count = lua.rawLength(at: index)
        guard count <= maxProtocols else {
            throw LuaError(.usage, "\(fname): field '\(field)' lists \(count) names; the limit is \(maxProtocols)")
        }
        var total = 0
        for position in 0..<count {
            defer { lua.pop() }
            if lua.pushItem(position + 1, ofTableAt: index) == .string {
                let length = lua.rawLength(at: -1)
                guard length <= maxNameBytes else {
                    throw tooLong(length, fname: fname, field: "\(field)[\(position + 1)]")
                }
                total += length
            }
        }
        return total
    }

    private static func tooLong(_ length: Int, fname: String, field: String) -> LuaError {
        LuaError(.usage, "\(fname): field '\(field)' is \(length) bytes long; the limit is \(maxNameBytes) bytes")
    }
}

extension LuaStack {
    /// Charges `bytes` that Swift keeps for the script to the state's memory
    /// budget; fails, naming the limit and `fname`, when they would pass it.
    func chargeSwiftMemory(_ bytes: Int, for fname: String) throws {
        guard chargeSwiftMemoryWithinLimit(bytes) else {
            let limit = limits.maxMemory ?? 0
            throw LuaError(
                .memoryLimit, callerPrefix() + "\(fname): memory limit exceeded (limit \(LuaLimits.formatSize(limit))): what Swift keeps for the script is charged to its budget")
        }
    }
}

extension LuaStack {
    /// Charges `units` of work that Swift does for the running script
    /// (about one VM instruction each) to its instruction budget and reads
    /// the deadline, as the sandbox's C functions do; fails with the
    /// limit's error (`instruction limit exceeded (N instructions)`, or the
    /// time limit's) when a budget is used up. A no-op when none is armed.
    /// Loops charge through a ``SwiftWorkMeter``.
    func chargeSwiftWork(_ units: Int) throws {
        guard let refusal = chargeSwiftWorkWithinLimits(units) else { return }
        throw LuaError(refusal.hasPrefix("time limit") ? .timeLimit : .instructionLimit, callerPrefix() + refusal)
    }
}

/// Work a Swift loop does for a script (a stack level walked, a value
/// converted, a name compared), charged to the state's instruction budget
/// in batches: every ``batch`` units the meter charges them and reads the
/// clock, so that the loop stops at `--max-instructions` and at
/// `--max-time` like the script's own code.
struct SwiftWorkMeter {
    /// Units gathered before they are charged (a few microseconds of work).
    static let batch = 4096

    let lua: LuaStack
    private var pending = 0

    init(_ lua: LuaStack) {
        self.lua = lua
    }

    /// Adds `units`; charges the batch when it is full.
    mutating func add(_ units: Int = 1) throws {
        pending += units
        if pending >= Self.batch { try flush() }
    }

    /// Charges what was added since the last charge.
    mutating func flush() throws {
        guard pending > 0 else { return }
        let units = pending
        pending = 0
        try lua.chargeSwiftWork(units)
    }
}
