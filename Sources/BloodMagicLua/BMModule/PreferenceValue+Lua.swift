import Foundation

extension PreferenceValue {
    /// Pushes the value: booleans, integers, floats and strings as themselves,
    /// data as a byte string, a date as seconds since 1970 (as `os.time`),
    /// arrays and dictionaries as tables. A value from a store may be nested
    /// to any depth: each level checks the stack, and one nested more than
    /// ``LuaNesting/maxDepth`` is refused; either is a ``LuaError`` (the
    /// stack is left as it was).
    func push(onto lua: LuaStack) throws(LuaError) {
        try push(onto: lua, depth: 0)
    }

    private func push(onto lua: LuaStack, depth: Int) throws(LuaError) {
        switch self {
        case .bool(let value): lua.push(value)
        case .int(let value): lua.push(value)
        case .double(let value): lua.push(value)
        case .string(let value): lua.push(value)
        case .data(let value): lua.push(LuaBytes([UInt8](value)))
        case .date(let value): lua.push(value.timeIntervalSince1970)
        case .array(let values):
            guard depth < LuaNesting.maxDepth else { throw Self.tooDeep }
            try lua.pushCheckedSequence(values) { (value) throws(LuaError) in try value.push(onto: lua, depth: depth + 1) }
        case .dictionary(let values):
            guard depth < LuaNesting.maxDepth else { throw Self.tooDeep }
            try lua.pushCheckedTable(values, key: { lua.push($0) }) { (value) throws(LuaError) in
                try value.push(onto: lua, depth: depth + 1)
            }
        }
    }

    private static var tooDeep: LuaError {
        LuaError(.conversion, "a preference value nested more than \(LuaNesting.maxDepth) deep cannot cross into Lua")
    }

    /// Reads a Lua value to store: boolean, integer (kept an integer), float,
    /// string (bytes that are not UTF-8 become data), a sequence as an array,
    /// a table with string keys as a dictionary. Anything else is an error
    /// that names `what` and the offending path — so is a table that
    /// contains itself, and one nested more than ``LuaNesting/maxDepth`` deep.
    ///
    /// Swift keeps the value (and a store may write it out), so its size is
    /// capped at ``BMScriptBudget/maxPreferenceValueBytes`` as
    /// ``budgetBytes`` counts it, and the walk counts as it goes: a table
    /// reached twice (a table that shares subtables) is counted twice, as
    /// it would be copied twice. The walk stops as soon as the count passes
    /// the cap, so it visits at most about 65,000 values whatever the
    /// table's shape (a 50-level table of shared subtables stands for 2⁵⁰
    /// of them), and it charges each value to the instruction budget.
    static func read(from lua: LuaStack, at index: Int32, what: String) throws -> PreferenceValue {
        var walk = PreferenceWalk(lua)
        do {
            let value = try read(lua, lua.absolute(index), walk: &walk)
            try walk.work.flush()
            return value
        } catch let error as PreferenceConversionError {
            throw LuaError(.conversion, "\(what): \(error.message)")
        }
    }

    /// The value's size as ``BMScriptBudget`` counts it: the bytes of its
    /// strings and data, plus 16 bytes per other value and per table entry.
    var budgetBytes: Int {
        switch self {
        case .bool, .int, .double, .date: return 16
        case .string(let value): return 16 + value.utf8.count
        case .data(let value): return 16 + value.count
        case .array(let values): return values.reduce(16) { $0 + $1.budgetBytes }
        case .dictionary(let values): return values.reduce(16) { $0 + 16 + $1.key.utf8.count + $1.value.budgetBytes }
        }
    }

    private struct PreferenceConversionError: Error {
        let message: String
    }

    /// Where a walk of a Lua value is: the tables it is inside, the path
    /// to the value (rendered only for an error, so that a long key is not
    /// copied once per value below it), what it counted so far and the
    /// work it charges.
    private struct PreferenceWalk {
        enum Step {
            case key(String)
            case position(Int)
        }

        var ancestry = LuaTableAncestry()
        var path: [Step] = []
        /// The size counted so far, as ``PreferenceValue/budgetBytes``.
        var counted = 0
        var work: SwiftWorkMeter

        init(_ lua: LuaStack) {
            work = SwiftWorkMeter(lua)
        }

        /// `a.b[2].c` (keys longer than 64 bytes cut with `...`).
        var pathText: String {
            var text = ""
            for step in path {
                switch step {
                case .key(let key):
                    if !text.isEmpty { text += "." }
                    text += key.utf8.count > 64 ? String(decoding: key.utf8.prefix(61), as: UTF8.self) + "..." : key
                case .position(let position):
                    text += "[\(position)]"
                }
            }
            return text
        }

        func failure(_ text: String) -> PreferenceConversionError {
            let path = pathText
            return PreferenceConversionError(message: (path.isEmpty ? "" : "\(path): ") + text)
        }

        /// Counts `bytes` more (and charges the value to the instruction
        /// budget); throws once the count passes the cap.
        mutating func count(_ bytes: Int) throws {
            counted += bytes
            try work.add(1 + bytes / 64)
            guard counted > BMScriptBudget.maxPreferenceValueBytes else { return }
            throw tooLarge(counted)
        }

        /// The error for a value counted past the cap (at least `bytes`).
        func tooLarge(_ bytes: Int) -> PreferenceConversionError {
            let path = pathText
            let limit = LuaLimits.formatSize(BMScriptBudget.maxPreferenceValueBytes)
            return PreferenceConversionError(
                message: "the value is \(LuaLimits.formatSize(bytes)) or more as counted for storage"
                    + (path.isEmpty ? "" : " (at \(path); a table reached more than once counts each time)")
                    + "; the limit is \(limit)")
        }
    }

    private static func read(_ lua: LuaStack, _ index: Int32, walk: inout PreferenceWalk) throws -> PreferenceValue {
        switch lua.valueType(at: index) {
        case .boolean:
            try walk.count(16)
            return .bool(try lua.value(at: index, as: Bool.self))
        case .number:
            try walk.count(16)
            if lua.isInteger(at: index) { return .int(try lua.value(at: index, as: Int.self)) }
            return .double(try lua.value(at: index, as: Double.self))
        case .string:
            // Counted before it is copied.
            try walk.count(16 + lua.rawLength(at: index))
            if let string = lua.rawString(at: index) { return .string(string) }
            return .data(Data(try LuaBytes.read(from: lua, at: index).bytes))
        case .table:
            do {
                try walk.ancestry.enter(lua, at: index)
            } catch {
                throw walk.failure("cannot store it: \(error.reason)")
            }
            defer { walk.ancestry.leave() }
            try walk.count(16)
            let count = lua.rawLength(at: index)
            var array: [PreferenceValue] = []
            var dictionary: [String: PreferenceValue] = [:]
            var keys = 0
            try lua.requireSpace(3)
            // An error leaves the walk with the stack as it was.
            try lua.forEachEntry(ofTableAt: index) { () throws -> Bool in
                keys += 1
                // Every entry counts at least 16 bytes: a table too large
                // to store is refused before the rest of it is walked.
                if walk.counted + 16 * (keys - dictionary.count) > BMScriptBudget.maxPreferenceValueBytes {
                    throw walk.tooLarge(walk.counted + 16 * (keys - dictionary.count))
                }
                let valueIndex = lua.top
                if lua.valueType(at: -2) == .string, let key = lua.rawString(at: -2) {
                    walk.path.append(.key(key))
                    try walk.count(16 + key.utf8.count)
                    dictionary[key] = try read(lua, valueIndex, walk: &walk)
                    walk.path.removeLast()
                } else if lua.valueType(at: -2) == .string {
                    throw walk.failure("cannot store a table with a key that is not valid UTF-8")
                } else if !lua.isInteger(at: -2) {
                    throw walk.failure("cannot store a table with a \(lua.typeName(at: -2)) key (use string keys or a sequence)")
                } else {
                    try walk.work.add()
                }
                return true
            }
            if dictionary.isEmpty {
                guard keys == count else { throw walk.failure("cannot store a table with holes or non-sequence integer keys") }
                if count > 0 {
                    for position in 1...count {
                        lua.pushItem(position, ofTableAt: index)
                        defer { lua.pop() }
                        walk.path.append(.position(position))
                        array.append(try read(lua, lua.top, walk: &walk))
                        walk.path.removeLast()
                    }
                }
                return .array(array)
            }
            guard keys == dictionary.count else {
                throw walk.failure("cannot store a table that mixes string keys and sequence items")
            }
            return .dictionary(dictionary)
        default:
            throw walk.failure("cannot store a \(lua.typeName(at: index)) (preferences hold booleans, numbers, strings and tables of them)")
        }
    }
}
