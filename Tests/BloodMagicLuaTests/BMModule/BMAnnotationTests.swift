import Foundation
import Testing
@testable import BloodMagicLua
import TestSupport

// Editor annotations: `bmlua types`, ScriptHost.annotations(), LuaAnnotations.

/// What an annotation file declares: classes with their fields, functions
/// with their parameters, values.
private struct AnnotationIndex {
    var classes: [String: [String: (type: String, required: Bool)]] = [:]
    var functions: [String: [(name: String, type: String)]] = [:]
    var values: Set<String> = []

    init(_ text: String) {
        var currentClass: String?
        var params: [(String, String)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("---@class ") {
                let name = String(line.dropFirst("---@class ".count).split(separator: ":")[0]).trimmed
                currentClass = name
                classes[name, default: [:]] = classes[name] ?? [:]
            } else if line.hasPrefix("---@field "), let currentClass {
                let parts = line.dropFirst("---@field ".count).split(separator: " ", maxSplits: 2).map(String.init)
                guard parts.count >= 2 else { continue }
                let required = !parts[0].hasSuffix("?")
                classes[currentClass]?[required ? parts[0] : String(parts[0].dropLast())] = (parts[1], required)
            } else if line.hasPrefix("---@param ") {
                let parts = line.dropFirst("---@param ".count).split(separator: " ", maxSplits: 1).map(String.init)
                params.append((parts[0].hasSuffix("?") ? String(parts[0].dropLast()) : parts[0], parts.count > 1 ? parts[1] : ""))
            } else if line.hasPrefix("function ") {
                let name = String(line.dropFirst("function ".count).prefix { $0 != "(" })
                functions[name] = params
                params = []
                currentClass = nil
            } else if let equals = line.range(of: " = {}"), !line.hasPrefix("-") {
                values.insert(String(line[..<equals.lowerBound]))
                params = []
                currentClass = nil
            } else if line.isEmpty {
                currentClass = nil
            }
        }
    }

    /// The fields of the table-typed parameters of `function` (a union's
    /// class members included: `string|bm.TypedSpellDef`).
    func tableFields(of function: String) -> Set<String> {
        var fields: Set<String> = []
        for param in functions[function] ?? [] {
            // `string|bm.TypedSpellDef`, `fun(request: bm.ResolverRequest): any`
            for match in param.type.matches(of: /bm\.[A-Za-z]+/) {
                fields.formUnion(classes[String(param.type[match.range])]?.keys ?? [:].keys)
            }
        }
        return fields
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespaces) }
}

/// What docs/lua-api.md names: every `bm.…` and, per function, the fields
/// its definition table or options are documented with.
private struct DocumentedAPI {
    var names: Set<String> = []
    var fields: [String: Set<String>] = [:]

    init(markdown: String) throws {
        let name = try Regex(#"bm(\.[A-Za-z_]+)+"#)
        for match in markdown.matches(of: name) where !markdown[match.range].hasSuffix(".lua") {  // not file names
            names.insert(String(markdown[match.range]))
        }
        var inCode = false
        var heading: String?   // the function a `### bm.…` heading documents
        for line in markdown.split(separator: "\n").map(String.init) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            if inCode { continue }
            if line.hasPrefix("#") {
                heading = line.hasPrefix("### ") ? line.firstMatch(of: name).map { String(line[$0.range]) } : nil
            }
            // A table row under such a heading: `| `field` | … |`.
            if let heading, line.hasPrefix("| `"), let field = Self.codeSpans(line).first,
               (try? /[a-z_]+/.wholeMatch(in: field)) != nil {
                fields[heading, default: []].insert(field)
            }
            var current: String?
            for span in Self.codeSpans(line) {
                if let match = span.prefixMatch(of: name) {
                    current = String(span[match.range])
                }
                guard let current, let fields = Self.tableFields(span), !fields.isEmpty else { continue }
                self.fields[current, default: []].formUnion(fields)
            }
        }
    }

    /// The `code spans` of a line.
    static func codeSpans(_ line: String) -> [String] {
        line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The field names of the first `{ … }` of a span: `{ a, b }` or `{ a = x, b = { … } }`.
    static func tableFields(_ span: String) -> Set<String>? {
        guard let open = span.firstIndex(of: "{") else { return nil }
        var depth = 0
        var piece = ""
        var pieces: [String] = []
        for character in span[open...] {
            if character == "{" {
                depth += 1
                if depth == 1 { continue }
            } else if character == "}" {
                depth -= 1
                if depth == 0 { break }
            }
            if depth == 1 && character == "," {
                pieces.append(piece)
                piece = ""
            } else {
                piece.append(character)
            }
        }
        pieces.append(piece)
        let identifier = /^\s*([a-z_]+)\s*(=.*)?$/
        return Set(pieces.compactMap { piece in
            (try? identifier.wholeMatch(in: piece)).map { String($0.1) }
        })
    }
}

private let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A type with every kind of member, to annotate.
private final class AnnotatedClient: LuaExposable {
    var baseURL = "x"
    var retries = 3
    var mirror: String?
    var tags: [String] = []
    var peer: AnnotatedClient?
}

@Suite("editor annotations")
struct BMAnnotationTests {
    @Test func theAnnotationsAreValidLuaThatRuns() throws {
        let text = try makeHost().annotations()
        #expect(text.hasPrefix("---@meta bm\n"))
        let state = try LuaState()
        state.withStack { lua in
            lua.push(text)
            lua.setRawGlobal("annotations")
        }
        // Compiles, and runs (a meta file's code must not fail: tables exist
        // before functions are put in them).
        let result = try state.run("""
            local chunk, err = load(annotations, "=bm.d.lua", "t")
            if not chunk then return err end
            chunk()
            return type(bm.initializer), type(bm.spell.lazy), type(bm.skip)
            """)
        #expect(result == [.string("function"), .string("function"), .string("table")])
    }

    @Test func theAnnotationsNameEveryFunctionAndFieldTheDocsName() throws {
        let markdown = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/lua-api.md"), encoding: .utf8)
        let documented = try DocumentedAPI(markdown: markdown)
        let index = AnnotationIndex(try makeHost().annotations())
        #expect(documented.names.count >= 20, "the doc parser should find the documented names")
        for name in documented.names.sorted() {
            #expect(index.functions[name] != nil || index.values.contains(name) || index.classes[name] != nil,
                    "docs name \(name), the annotations do not")
        }
        #expect(documented.fields["bm.initializer"] == ["type", "protocols", "container", "scope", "name", "arguments", "implements", "async", "init"])
        for (function, fields) in documented.fields.sorted(by: { $0.key < $1.key }) {
            let annotated = index.tableFields(of: function)
            for field in fields.sorted() {
                #expect(annotated.contains(field), "docs give \(function) the field '\(field)', the annotations do not")
            }
        }
        #expect(index.classes["bm.ResolverRequest"]?.keys.sorted() == documented.fields["bm.resolver"]?.sorted())
    }

    @Test func everyFunctionOfTheModuleIsAnnotated() throws {
        let host = try makeHost()
        let index = AnnotationIndex(try host.annotations())
        let live = try host.lua("""
            local names = {}
            for key, value in pairs(bm) do
              if type(value) == "function" then names[#names + 1] = "bm." .. key end
            end
            for key in pairs(bm.spell) do names[#names + 1] = "bm.spell." .. key end
            table.sort(names)
            return table.concat(names, " ")
            """)
        let names = Set(live.first?.stringValue?.split(separator: " ").map(String.init) ?? [])
        #expect(names.count > 15)
        #expect(names == Set(index.functions.keys.filter { $0.hasPrefix("bm.") }))
        #expect(index.values.isSuperset(of: ["bm", "bm.spell", "bm.skip"]))
    }

    /// The annotated fields are the ones the checks accept, and the required
    /// ones the ones the checks require: the same schemas.
    @Test func theAnnotatedFieldsAreTheOnesTheChecksAccept() throws {
        let host = try makeHost()
        let index = AnnotationIndex(try host.annotations())
        let calls: [(function: String, call: String)] = [
            ("bm.initializer", "bm.initializer(def)"), ("bm.singleton", "bm.singleton(def)"),
            ("bm.hook", "bm.hook(def)"), ("bm.preference", "bm.preference(def)"), ("bm.partial", "bm.partial(def)"),
            ("bm.define_spell", "bm.define_spell(def)"), ("bm.resolve", "bm.resolve('T', def)"),
            ("bm.spell.lazy", "bm.spell.lazy(def)"), ("bm.spell.injectable", "bm.spell.injectable(def)"),
            ("bm.spell.partial", "bm.spell.partial(def)"), ("bm.spell.final", "bm.spell.final(def)"),
            ("bm.spell.preference", "bm.spell.preference(def)"),
        ]
        for (function, call) in calls {
            let fields = index.tableFields(of: function)
            #expect(!fields.isEmpty, "\(function) has no annotated table fields")
            for field in fields.sorted() {
                // A value no rule accepts but `any`: the error, if any, is not "unknown field".
                let message = host.failure("local def = { \(field) = coroutine.create(print) } \(call)") ?? ""
                #expect(!message.contains("unknown field"), "\(function): \(message)")
            }
            let unknown = host.failure("local def = { zz_unknown = 1 } \(call)") ?? ""
            #expect(unknown.contains("unknown field 'zz_unknown'"), "\(function): \(unknown)")
            let missing = host.failure("local def = {} \(call)") ?? ""
            let required = Set(index.functions[function]?.flatMap { param in
                param.type.split(separator: "|").compactMap { index.classes[String($0)] }.flatMap { $0.filter(\.value.required).keys }
            } ?? [])
            if let match = missing.firstMatch(of: /missing required field '([a-z_]+)'/), !missing.contains("(or 'protocols')") {
                #expect(required.contains(String(match.1)), "\(function): \(missing) but the annotations require \(required)")
            } else {
                #expect(required.isEmpty, "\(function): the annotations require \(required), the checks do not (\(missing))")
            }
        }
    }

    @Test func exposedTypesGetAClassWithConstructorPropertiesAndMethods() throws {
        let host = try makeHost()
        host.expose(LuaExposedType(AnnotatedClient.self)
            .constructor(arguments: ["baseURL", "retries?"]) { _ in AnnotatedClient() }
            .property("baseURL", \.baseURL)
            .property("retries", \.retries)
            .property("mirror", get: { $0.mirror })
            .property("tags", get: { $0.tags })
            .property("peer", get: { $0.peer })
            .method("fetch", arguments: ["path", "limit?"]) { _, _ in 42 }
            .method("reset") { _, _ in }
            .method("pairs", pushing: { _, _ in 0 })
            .method("end", arguments: []) { _, _ in }
            .conforms(to: "FeedLoader", "Cancellable"))
        let text = try host.annotations()
        #expect(text.contains("""
            ---@class FeedLoader
            """))
        #expect(text.contains("""
            ---@class AnnotatedClient: FeedLoader, Cancellable
            ---@field baseURL string
            ---@field mirror string? (read-only)
            ---@field peer AnnotatedClient? (read-only)
            ---@field retries integer
            ---@field tags string[] (read-only)
            AnnotatedClient = {}

            ---Makes a AnnotatedClient.
            ---@overload fun(fields: { baseURL: any, retries?: any }): AnnotatedClient
            ---@param baseURL any
            ---@param retries? any
            ---@return AnnotatedClient
            function AnnotatedClient.new(baseURL, retries) end
            """))
        #expect(text.contains("""
            ---@param path any
            ---@param limit? any
            ---@return integer
            function AnnotatedClient:fetch(path, limit) end
            """))
        #expect(text.contains("---@param ... any\nfunction AnnotatedClient:reset(...) end"))
        #expect(text.contains("---@param ... any\n---@return any\nfunction AnnotatedClient:pairs(...) end"))
        #expect(text.contains("---@param self AnnotatedClient\nAnnotatedClient[\"end\"] = function(self) end"))
        try expectAnnotationsRun(text)
    }

    @Test func hostileDescriptionsCannotBreakOutOfComments() throws {
        let hostile = LuaTypeDescription(
            name: "Evil", summary: "line one\nos.exit(1) --", protocols: ["Not A Name", "Fine"],
            constructor: LuaFunctionDescription(
                name: "new", parameters: [LuaParameterDescription(name: "base url", type: "string\nerror('x')")]),
            properties: [LuaPropertyDescription(name: "x", type: "integer", summary: "\r\nerror('y')")],
            methods: [LuaFunctionDescription(name: "we ird", parameters: [LuaParameterDescription(name: "function")])])
        let skipped = LuaTypeDescription(name: "Generic<T>")
        let api = try makeHost().apiDescription()
        let text = LuaAnnotations(api: api, types: [hostile, skipped]).render()
        for line in text.split(separator: "\n") where !line.hasPrefix("--") && !line.isEmpty {
            #expect(!line.contains("error(") && !line.contains("os.exit"), "code line from a description: \(line)")
        }
        #expect(text.contains("-- (not annotated: Generic<T> is not a Lua name)"))
        #expect(text.contains("---@class Evil: Fine\n"))
        #expect(text.contains("function Evil.new(arg1) end"))
        #expect(text.contains("Evil[\"we ird\"] = function(self, arg1) end"))
        try expectAnnotationsRun(text)
    }

    @Test func descriptionsDecodeFromShortJSON() throws {
        let json = """
            [{ "name": "Cache", "constructor": { "name": "new", "parameters": [{ "name": "capacity", "type": "integer" }] },
               "properties": [{ "name": "hits", "type": "integer" }, { "name": "label" }],
               "methods": [{ "name": "clear" }] }]
            """
        let types = try JSONDecoder().decode([LuaTypeDescription].self, from: Data(json.utf8))
        #expect(types == [LuaTypeDescription(
            name: "Cache", protocols: [],
            constructor: LuaFunctionDescription(name: "new", parameters: [LuaParameterDescription(name: "capacity", type: "integer")]),
            properties: [LuaPropertyDescription(name: "hits", type: "integer"), LuaPropertyDescription(name: "label")],
            methods: [LuaFunctionDescription(name: "clear", parameters: nil)])])
        let back = try JSONDecoder().decode([LuaTypeDescription].self, from: JSONEncoder().encode(types))
        #expect(back == types)
    }

    @Test func bmluaTypesPrintsOrWritesTheAnnotations() throws {
        let printed = try bmlua(["types"])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout == (try makeHost().annotations()))
        let directory = ScratchPaths.url("bm-types")
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = try bmlua(["types", "-o", directory.appendingPathComponent("types").path])
        #expect(written.status == 0, "\(written.stderr)")
        let file = directory.appendingPathComponent("types/bm.d.lua")
        #expect(written.stdout == file.path + "\n")
        #expect(try String(contentsOf: file, encoding: .utf8) == printed.stdout)
    }
}
