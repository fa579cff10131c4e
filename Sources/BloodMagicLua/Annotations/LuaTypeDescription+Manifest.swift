// Editor annotations from an app manifest. This is the only way exposed
// types become annotations: a live host describes its types as a manifest
// first (``ScriptHost/manifest()``), so `bmlua types --manifest app.json`
// and ``ScriptHost/annotations(types:)`` cannot disagree.

extension AppManifest {
    /// The exposed types as scripts see them, for editor annotations.
    public var luaTypeDescriptions: [LuaTypeDescription] {
        LuaTypeDescription.inLuaSyntax(types)
    }

    /// The globals the app sets, as scripts see them, for editor annotations.
    public var luaGlobalDescriptions: [LuaGlobalDescription] {
        let names = Set(types.map(\.name).filter(LuaAnnotationWriter.isIdentifier))
        return globals.map { global in
            let fields = global.value.kind == "table"
                ? global.value.fields.map { fields in
                    fields.keys.sorted().map { key in
                        LuaPropertyDescription(
                            name: key, type: LuaAnnotationType.luaType(of: fields[key]!, typeNames: names), writable: true)
                    }
                }
                : nil
            return LuaGlobalDescription(
                name: global.name, type: LuaAnnotationType.luaType(of: global.value, typeNames: names), fields: fields)
        }
    }
}

extension LuaTypeDescription {
    /// `types` in LuaCATS syntax, each member of one of them annotated with
    /// its Lua name (see ``init(_:typeNames:)``).
    static func inLuaSyntax(_ types: [LuaTypeDescription]) -> [LuaTypeDescription] {
        let names = Set(types.map(\.name).filter(LuaAnnotationWriter.isIdentifier))
        return types.map { LuaTypeDescription($0, typeNames: names) }
    }

    /// The description `type` in LuaCATS syntax, as annotations write it
    /// (`type` itself when it is in that syntax already). `typeNames` are
    /// the Lua names of every exposed type: a member of such a type is
    /// annotated with it, any other class as `any`.
    public init(_ type: LuaTypeDescription, typeNames: Set<String>) {
        guard type.typeSyntax == .swift else {
            self = type
            return
        }
        func lua(_ spelling: String) -> String { LuaAnnotationType.luaType(spelling: spelling, typeNames: typeNames) }
        func parameters(_ parameters: [LuaParameterDescription]?) -> [LuaParameterDescription]? {
            parameters?.map { LuaParameterDescription(name: $0.name, type: lua($0.type), optional: $0.optional) }
        }
        let constructor = type.constructor.map { constructor in
            if let decodes = constructor.decodes {
                return LuaFunctionDescription(
                    name: "new", parameters: [LuaParameterDescription(name: "config", type: "table")], returns: type.name,
                    decodes: decodes, summary: constructor.summary ?? "Makes a \(type.name) from a table decoded into \(decodes).")
            }
            var described = constructor
            described.parameters = parameters(constructor.parameters)
            described.returns = constructor.returns.map(lua)
            return described
        }
        self.init(
            name: type.name, swiftType: type.swiftType, summary: type.summary, protocols: type.protocols,
            constructor: constructor,
            properties: type.properties.map { property in
                var described = property
                described.type = lua(property.type)
                return described
            },
            methods: type.methods.map { method in
                var described = method
                described.parameters = parameters(method.parameters)
                // A result spelled `Void` is none, however it came in.
                described.returns = method.returns.flatMap { $0 == "Void" || $0 == "()" ? nil : lua($0) }
                return described
            },
            typeSyntax: .lua)
    }
}

/// A global the app sets for its scripts, for editor annotations.
public struct LuaGlobalDescription: Codable, Sendable, Equatable {
    /// The global's name.
    public var name: String
    /// Its Lua type (LuaCATS syntax).
    public var type: String
    /// For a table: its fields, annotated as a class of their own.
    public var fields: [LuaPropertyDescription]?

    /// Describes a global.
    public init(name: String, type: String, fields: [LuaPropertyDescription]? = nil) {
        self.name = name
        self.type = type
        self.fields = fields
    }
}

/// The Lua type (LuaCATS syntax) of a Swift type as a manifest spells it.
enum LuaAnnotationType {
    /// Deeper spellings are annotated `any` (a manifest is a file anyone can write).
    private static let maxDepth = 16

    /// The LuaCATS type of values of the Swift type spelled `spelling`:
    /// `string`, `integer`, `number`, `boolean`, `T[]`, `table<K, V>`, `T?`,
    /// one of `typeNames`, else `any`.
    static func luaType(spelling: String, typeNames: Set<String>) -> String {
        luaType(Substring(spelling), typeNames: typeNames, depth: 0)
    }

    private static func luaType(_ spelling: Substring, typeNames: Set<String>, depth: Int) -> String {
        var text = spelling
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        guard depth < maxDepth, !text.isEmpty else { return "any" }
        func inner(_ part: Substring) -> String { luaType(part, typeNames: typeNames, depth: depth + 1) }
        if text.hasSuffix("?") || text.hasSuffix("!") {
            return optional(inner(text.dropLast()))
        }
        if let arguments = genericArguments(text, of: "Optional"), arguments.count == 1 {
            return optional(inner(arguments[0]))
        }
        for sequence in ["Array", "ContiguousArray", "ArraySlice", "Set"] {
            if let arguments = genericArguments(text, of: sequence), arguments.count == 1 {
                return group(inner(arguments[0])) + "[]"
            }
        }
        if let arguments = genericArguments(text, of: "Dictionary"), arguments.count == 2 {
            return "table<\(inner(arguments[0])), \(inner(arguments[1]))>"
        }
        if text.hasPrefix("["), text.hasSuffix("]") {
            let body = text.dropFirst().dropLast()
            let halves = split(body, at: ":")
            if halves.count == 2 { return "table<\(inner(halves[0])), \(inner(halves[1]))>" }
            if halves.count == 1 { return group(inner(body)) + "[]" }
            return "any"
        }
        switch text {
        case "String", "Substring", "Character": return "string"
        case "Bool": return "boolean"
        case "Int", "Int64", "Int32", "Int16", "Int8", "UInt", "UInt64", "UInt32", "UInt16", "UInt8": return "integer"
        case "Double", "Float", "CGFloat": return "number"
        default: break
        }
        let name = String(text)
        return typeNames.contains(name) && LuaAnnotationWriter.isIdentifier(name) ? name : "any"
    }

    /// The Lua type of a value of `shape` (a manifest's global).
    static func luaType(of shape: AppManifest.ValueShape, typeNames: Set<String>) -> String {
        switch shape.kind {
        case "nil", "boolean", "integer", "number", "string", "function", "thread": return shape.kind
        case "userdata":
            if let type = shape.type, typeNames.contains(type) { return type }
            return "userdata"
        case "table":
            // A list of one kind of item is that kind's array.
            if shape.fields == nil, let items = shape.items, let first = items.first,
               items.allSatisfy({ $0.kind == first.kind && $0.type == first.type }), first.kind != "table" {
                return group(luaType(of: first, typeNames: typeNames)) + "[]"
            }
            return "table"
        default: return "any"
        }
    }

    /// `T?`, or `(A|B)?` for a union; `any` stays `any`.
    static func optional(_ name: String) -> String {
        name == "any" ? "any" : group(name) + "?"
    }

    /// A union in parentheses, so a suffix applies to all of it.
    private static func group(_ name: String) -> String {
        name.contains("|") ? "(\(name))" : name
    }

    /// The arguments of `Name<A, B>` when `text` spells one, split at the
    /// top level only.
    private static func genericArguments(_ text: Substring, of name: String) -> [Substring]? {
        guard text.hasPrefix(name + "<"), text.hasSuffix(">") else { return nil }
        let body = text.dropFirst(name.count + 1).dropLast()
        return split(body, at: ",")
    }

    /// `text` split at each `separator` outside brackets.
    private static func split(_ text: Substring, at separator: Character) -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var start = text.startIndex
        for index in text.indices {
            switch text[index] {
            case "<", "[", "(": depth += 1
            case ">", "]", ")": depth -= 1
            case separator where depth == 0:
                parts.append(text[start..<index])
                start = text.index(after: index)
            default: break
            }
        }
        parts.append(text[start...])
        return parts
    }
}
