/// Editor annotations for scripts: a `---@meta` file in LuaCATS syntax that
/// lua-language-server reads (point its `workspace.library` at the folder
/// holding it), with the `bm` module — every function, every definition
/// table as a `---@class` with typed fields, the spell descriptors, `bm.class`
/// — and one `---@class` per exposed Swift type.
///
/// ```swift
/// let text = try host.annotations()                       // bm and the host's exposed types
/// try host.writeAnnotations(toDirectory: ".bmlua/types")  // writes bm.d.lua there
/// ```
///
/// The `bm` part is written from ``BMAPIDescription``, which the module's
/// Lua half builds from the schemas its checks use, so the annotations and
/// the checks cannot disagree. Names that are not Lua identifiers cannot be
/// annotated: such a type is left out with a comment, a parameter renamed.
/// Free text is kept on one line, so no description can end a comment.
public struct LuaAnnotations: Sendable {
    /// The conventional file name of the annotations.
    public static let fileName = "bm.d.lua"

    /// The `bm` module's API.
    public var api: BMAPIDescription
    /// The Swift types scripts see, by name (in either syntax: those in
    /// Swift syntax, a manifest's, are written in LuaCATS syntax).
    public var types: [LuaTypeDescription]
    /// The globals the app sets for its scripts, by name.
    public var globals: [LuaGlobalDescription]
    /// The named spells of the registry (from Swift's `registerSpell(named:)`
    /// or a script's `bm.define_spell`), usable as `bm.spell.<name>`: each
    /// name and where it was registered.
    public var spells: [(name: String, source: String)]
    /// The custom scopes the app declared (``AppManifest/scopes``): a
    /// definition's `scope` field is annotated with their names instead of
    /// any string.
    public var scopes: [String] = []

    /// Annotations for `api`, `types`, `globals` and `spells`.
    public init(
        api: BMAPIDescription, types: [LuaTypeDescription] = [], globals: [LuaGlobalDescription] = [],
        spells: [(name: String, source: String)] = []
    ) {
        self.api = api
        self.types = types
        self.globals = globals
        self.spells = spells
    }

    /// The annotation file's text.
    public func render() -> String {
        var out = LuaAnnotationWriter()
        out.line("---@meta bm")
        out.line("-- Editor annotations (LuaCATS, for lua-language-server) for BloodMagic's `bm` module"
            + (types.isEmpty && globals.isEmpty ? "." : " and what the Swift app gives its scripts."))
        out.line("-- Written by `bmlua types` (or ScriptHost.annotations()) from the module's own definition")
        out.line("-- schemas: regenerate it rather than editing it.")
        renderModule(into: &out)
        renderTypes(into: &out)
        renderGlobals(into: &out)
        return out.text
    }

    // MARK: - bm

    private func renderModule(into out: inout LuaAnnotationWriter) {
        for shape in api.classes {
            out.blank()
            out.doc(shape.doc)
            out.line("---@class \(shape.name)")
            if shape.name == "bm.Class" {
                out.line("---@field [string] any the class's fields and methods")
            }
            for field in shape.fields {
                let name = field.required ? field.name : field.name + "?"
                let lua = field.name == "scope" ? scopeType(field.lua) : field.lua
                out.line("---@field \(LuaAnnotationWriter.fieldName(name)) \(LuaAnnotationWriter.type(lua))"
                    + LuaAnnotationWriter.trailing(field.doc))
            }
        }
        out.blank()
        out.line("---What a resolver returns to leave a property alone.")
        out.line("---@class bm.Skip")
        out.blank()
        out.line("---The spell descriptors of bm.class fields; bm.define_spell adds custom ones.")
        out.line("---@class bm.spells")
        for spell in spells where LuaAnnotationWriter.isIdentifier(spell.name) {
            out.line("---@field \(spell.name) fun(...: any): bm.Spell"
                + LuaAnnotationWriter.trailing("a named spell, registered at \(spell.source)"))
        }
        out.line("---@field [string] fun(...: any): bm.Spell")
        out.blank()
        out.line("---BloodMagic's spells, initializers, hooks and preferences, sharing the app's registry.")
        out.line("---@class bm")
        out.line("bm = {}")
        for value in api.values {
            guard let path = out.entry(value.name, doc: value.doc) else { continue }
            out.line("---@type \(LuaAnnotationWriter.type(value.lua))")
            out.line("\(path) = {}")
        }
        for function in api.functions {
            guard let path = out.entry(function.name, doc: function.doc) else { continue }
            let parameters = function.params.map {
                // bm.reset_scope takes one of the app's custom scopes.
                LuaParameterDescription(
                    name: $0.name, type: function.name == "bm.reset_scope" ? customScopeType($0.lua) : $0.lua,
                    optional: $0.optional)
            }
            out.function(path, parameters: parameters, returns: function.returns)
        }
    }

    /// A `scope` field's type with the app's custom scope names in place of
    /// `string` (names that cannot be quoted plainly are left to `string`).
    private func scopeType(_ lua: String) -> String {
        let names = scopes.filter(SpellScope.isValidCustomName)
        guard !names.isEmpty, lua.hasSuffix("|string") else { return lua }
        return lua.dropLast("|string".count) + names.map { "|\"\($0)\"" }.joined()
    }

    /// The app's custom scope names as a union (`"checkout"|"session"`),
    /// else `lua` (a `string`).
    private func customScopeType(_ lua: String) -> String {
        let names = scopes.filter(SpellScope.isValidCustomName)
        return names.isEmpty ? lua : names.map { "\"\($0)\"" }.joined(separator: "|")
    }

    // MARK: - Exposed types

    private func renderTypes(into out: inout LuaAnnotationWriter) {
        let types = LuaTypeDescription.inLuaSyntax(types)
        let usable = types.filter { LuaAnnotationWriter.isIdentifier($0.name) }
        for skipped in types where !LuaAnnotationWriter.isIdentifier(skipped.name) {
            out.blank()
            out.line("-- (not annotated: \(LuaAnnotationWriter.oneLine(skipped.name)) is not a Lua name)")
        }
        // Protocols are only names to Lua: one empty class each, so that
        // "conforms to" reads as inheritance.
        let typeNames = Set(usable.map(\.name))
        let protocols = Set(usable.flatMap(\.protocols)).filter {
            LuaAnnotationWriter.isIdentifier($0) && !typeNames.contains($0)
        }
        for name in protocols.sorted() {
            out.blank()
            out.line("---A protocol of the Swift app (registry matching: `protocols = { \"\(name)\" }`).")
            out.line("---@class \(name)")
        }
        for type in usable {
            out.blank()
            out.doc(type.summary)
            let parents = type.protocols.filter { LuaAnnotationWriter.isIdentifier($0) && $0 != type.name }
            out.line("---@class \(type.name)" + (parents.isEmpty ? "" : ": " + parents.joined(separator: ", ")))
            for property in type.properties where LuaAnnotationWriter.isFieldName(property.name) {
                let note = property.writable ? property.summary : [property.summary, "(read-only)"]
                    .compactMap { $0 }.joined(separator: " ")
                out.line("---@field \(property.name) \(LuaAnnotationWriter.type(property.type))"
                    + LuaAnnotationWriter.trailing(note))
            }
            out.line("\(type.name) = {}")
            if let constructor = type.constructor {
                out.blank()
                out.doc(constructor.summary ?? "Makes a \(type.name).")
                if constructor.acceptsNamedTable, let parameters = constructor.parameters, !parameters.isEmpty {
                    let fields = parameters.filter { LuaAnnotationWriter.isIdentifier($0.name) }.map {
                        "\($0.name)\($0.optional ? "?" : ""): \(LuaAnnotationWriter.type($0.type))"
                    }
                    out.line("---@overload fun(fields: { \(fields.joined(separator: ", ")) }): \(type.name)")
                }
                out.function(
                    "\(type.name).new", parameters: constructor.parameters,
                    returns: constructor.returns.map(LuaAnnotationWriter.type) ?? type.name)
            }
            for method in type.methods {
                out.blank()
                out.doc(method.summary)
                out.method(type.name, method.name, parameters: method.parameters, returns: method.returns)
            }
        }
    }
}

extension LuaAnnotations {
    // MARK: - Globals

    /// One `---@type` per global; a table with fields gets a class
    /// `<name>.global` of its own.
    fileprivate func renderGlobals(into out: inout LuaAnnotationWriter) {
        for global in globals {
            out.blank()
            guard LuaAnnotationWriter.isIdentifier(global.name), global.name != "bm" else {
                out.line("-- (not annotated: the global \(LuaAnnotationWriter.oneLine(global.name)) is not a Lua name)")
                continue
            }
            out.line("---A global the Swift app sets for its scripts.")
            if let fields = global.fields, !fields.isEmpty {
                out.line("---@class \(global.name).global")
                for field in fields where LuaAnnotationWriter.isFieldName(field.name) {
                    out.line("---@field \(field.name) \(LuaAnnotationWriter.type(field.type))")
                }
                out.line("\(global.name) = {}")
            } else {
                out.line("---@type \(LuaAnnotationWriter.type(global.type))")
                out.line("\(global.name) = nil")
            }
        }
    }
}

/// Builds the annotation text, keeping every name and description safe in
/// its place: code gets identifiers only, comments get one line each.
struct LuaAnnotationWriter {
    private(set) var text = ""

    mutating func line(_ line: String) {
        text += line + "\n"
    }

    mutating func blank() {
        line("")
    }

    /// A description line, if any.
    mutating func doc(_ doc: String?) {
        guard let doc, !doc.isEmpty else { return }
        line("---" + Self.oneLine(doc))
    }

    /// Starts the entry of `name` (a blank line, then its description) and
    /// returns its path; writes nothing and returns nil when `name` is not a
    /// Lua path (see ``path(_:)``).
    mutating func entry(_ name: String, doc: String?) -> String? {
        guard let path = Self.path(name) else { return nil }
        blank()
        self.doc(doc)
        return path
    }

    /// `---@param`/`---@return` lines and `function path(params) end`.
    mutating func function(_ path: String, parameters: [LuaParameterDescription]?, returns: String?) {
        let names = annotateParameters(parameters)
        if let returns { line("---@return \(Self.type(returns))") }
        line("function \(path)(\(names.joined(separator: ", "))) end")
    }

    /// A method: `function Type:name(params) end`, or for a name that is a
    /// Lua keyword, `Type["end"] = function(self, …) end`.
    mutating func method(_ type: String, _ name: String, parameters: [LuaParameterDescription]?, returns: String?) {
        let names = annotateParameters(parameters)
        if let returns { line("---@return \(Self.type(returns))") }
        if Self.isIdentifier(name) {
            line("function \(type):\(name)(\(names.joined(separator: ", "))) end")
        } else {
            line("---@param self \(type)")
            let quoted = Self.quoted(name)
            line("\(type)[\(quoted)] = function(\((["self"] + names).joined(separator: ", "))) end")
        }
    }

    /// Writes the `---@param` lines; returns the parameter names for the
    /// code line (`...` for any arguments).
    private mutating func annotateParameters(_ parameters: [LuaParameterDescription]?) -> [String] {
        guard let parameters else {
            line("---@param ... any")
            return ["..."]
        }
        var used: Set<String> = []
        return parameters.enumerated().map { index, parameter in
            var name = Self.isIdentifier(parameter.name) ? parameter.name : "arg\(index + 1)"
            while !used.insert(name).inserted { name += "_" }
            line("---@param \(name)\(parameter.optional ? "?" : "") \(Self.type(parameter.type))")
            return name
        }
    }

    // MARK: Names and text

    static let keywords: Set<String> = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]

    /// Whether `name` is a Lua identifier (and not a keyword).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        let valid = name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) }
        return valid && !keywords.contains(name)
    }

    /// Whether `name` can be written after `---@field` (an identifier, or a
    /// keyword, which LuaCATS accepts there).
    static func isFieldName(_ name: String) -> Bool {
        isIdentifier(name) || keywords.contains(name)
    }

    /// A field name for `---@field` (`name` or `name?`); anything else in brackets.
    static func fieldName(_ name: String) -> String {
        let bare = name.hasSuffix("?") ? String(name.dropLast()) : name
        if isFieldName(bare) { return name }
        return "[\(quoted(bare))]" + (name.hasSuffix("?") ? "?" : "")
    }

    /// `bm.spell.lazy` as a path of identifiers, or nil.
    static func path(_ name: String) -> String? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return parts.allSatisfy(isIdentifier) ? name : nil
    }

    /// A type for an annotation: one line, and `any` when empty.
    static func type(_ type: String) -> String {
        let line = oneLine(type).trimmingCharacters(in: " ")
        return line.isEmpty ? "any" : line
    }

    /// ` description` after an annotation, or nothing.
    static func trailing(_ doc: String?) -> String {
        guard let doc, !doc.isEmpty else { return "" }
        return " " + oneLine(doc)
    }

    /// `text` on one line: line breaks (which would end the comment) become spaces.
    static func oneLine(_ text: String) -> String {
        String(text.unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}": return " "
            default: return Character(scalar)
            }
        })
    }

    /// A Lua string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                // Three digits always, so that a digit after it is not read as part of it.
                let digits = String(byte)
                out += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
            }
        }
        return out + "\""
    }
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var slice = self[...]
        while slice.first == character { slice = slice.dropFirst() }
        while slice.last == character { slice = slice.dropLast() }
        return String(slice)
    }
}
