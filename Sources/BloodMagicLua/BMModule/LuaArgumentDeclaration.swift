// The arguments a Lua initializer declares (`arguments = { "id: integer",
// "options: table?" }`): each a name and, when the script says it, the Lua
// type its value must have. Swift checks every value given to the
// initializer against it (BMModule+Arguments.swift) and `bmlua check`
// compares it with the manifest's factory types (ScriptCheckRun+Factories).
//
// Why strings in the existing array, not a map `{ id = "integer" }`: the
// array is the order `init` takes its arguments in; a Lua table's keys
// have no order, so a map would need a second list to say it. One string
// per argument keeps a bare name (`"id"`, any type) working as before.
//
// A type that is not one of Lua's but begins with a capital letter
// (`"user: User"`) names a Swift class exposed to Lua: the value must be an
// object of that class or of a subclass (`LuaExposedTypeInfo.accepts`),
// checked when the initializer is called. Lua's types are lower case, so a
// misspelled one (`"id: int"`) is still refused where it is written.

/// One declared argument of a Lua initializer.
struct LuaArgumentDeclaration: Equatable, Sendable {
    /// The Lua types an argument may declare.
    enum Kind: String, Sendable, CaseIterable {
        case any, boolean, number, integer, string, table, function, userdata
    }

    /// The script's name for it (`id`).
    let name: String
    /// The declared type; nil when the script gave only a name. For an
    /// exposed class (``className``), `.userdata`.
    let kind: Kind?
    /// The exposed class the value must be an object of (`"user: User"`),
    /// or nil for a Lua type.
    let className: String?
    /// Whether nil is accepted too (`"options: table?"`).
    let optional: Bool

    /// Reads one entry of `arguments`: `"id"` or `"id: integer"` (the
    /// prelude checked its shape; anything else is kept as a bare name).
    /// Linear in the entry's length.
    init(_ entry: String) {
        guard let colon = entry.firstIndex(of: ":") else {
            self.init(name: entry, kind: nil, optional: false)
            return
        }
        let name = entry[..<colon].trimmingSpaces
        var declared = entry[entry.index(after: colon)...].trimmingSpaces
        let optional = declared.hasSuffix("?")
        if optional { declared.removeLast() }
        if let kind = Kind(rawValue: String(declared)) {
            self.init(name: String(name), kind: kind, optional: optional)
        } else if Self.isClassName(declared) {
            self.init(name: String(name), kind: .userdata, optional: optional, className: String(declared))
        } else {
            self.init(name: entry, kind: nil, optional: false)
        }
    }

    init(name: String, kind: Kind?, optional: Bool, className: String? = nil) {
        self.name = name
        self.kind = kind
        self.optional = optional
        self.className = className
    }

    /// Whether `text` may name an exposed class in a declaration: an ASCII
    /// capital letter, then letters, digits or `_` (what the prelude's
    /// pattern lets through).
    static func isClassName(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, first >= UInt8(ascii: "A"), first <= UInt8(ascii: "Z") else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
        }
    }

    /// The declarations of an initializer's `arguments`.
    static func parse(_ entries: [String]) -> [LuaArgumentDeclaration] {
        entries.map(LuaArgumentDeclaration.init)
    }

    /// The declaration as messages and entries show it: `id`, `id: integer`, `options: table?`.
    var shown: String {
        guard let kind else { return name }
        return "\(name): \(className ?? kind.rawValue)" + (optional ? "?" : "")
    }

    /// How messages name the declared type: `integer`, `table or nil`, `User`.
    var expected: String {
        guard let kind else { return "any" }
        let type = className ?? kind.rawValue
        return optional ? "\(type) or nil" : type
    }

    /// Whether a Lua value of `type` (its `lua_type` name) fits, with
    /// `isInteger` saying whether a number is an integer (or a float with
    /// an exact integral value, as Lua's own `luaL_checkinteger` takes).
    /// For an exposed class, only whether it may be one (a userdata): the
    /// class is the caller's to check.
    func accepts(luaType type: String, isInteger: Bool) -> Bool {
        guard let kind else { return true }
        if type == "nil" { return optional || kind == .any }
        switch kind {
        case .any: return true
        case .integer: return type == "number" && isInteger
        case .userdata: return type == "userdata"
        default: return type == kind.rawValue
        }
    }

    /// The Lua type a Swift factory's argument of type `swiftType` (as the
    /// manifest spells it) crosses into Lua as, for `bmlua check`; nil when
    /// it cannot tell (a type it does not know: any exposed class crosses as
    /// `userdata`, which the caller decides). `optional` says it may be nil.
    static func luaType(ofSwift swiftType: String) -> (kind: Kind, optional: Bool)? {
        var spelled = Substring(swiftType).trimmingSpaces
        var optional = false
        if spelled.hasSuffix("?") {
            optional = true
            spelled.removeLast()
        } else if spelled.hasPrefix("Optional<"), spelled.hasSuffix(">") {
            optional = true
            spelled = spelled.dropFirst("Optional<".count).dropLast()
        }
        let name = String(spelled.split(separator: ".").last ?? spelled)
        switch name {
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64":
            return (.integer, optional)
        case "Double", "Float", "CGFloat": return (.number, optional)
        case "String", "Substring", "Character": return (.string, optional)
        case "Bool": return (.boolean, optional)
        default:
            if name.hasPrefix("[") || name.hasPrefix("Array<") || name.hasPrefix("Dictionary<") || name.hasPrefix("Set<") {
                return (.table, optional)
            }
            return nil
        }
    }
}

extension Substring {
    /// Without leading and trailing white space.
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
