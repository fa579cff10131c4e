import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, runtime arguments: a Lua initializer declares its arguments'
// Lua types (`arguments = { "id: integer", "options: table?" }`), and what
// Swift or `bm.resolve` gives it is checked against them before `init`
// runs: the error names the argument, the expected and given types and the
// registration's file:line. Undeclared arguments take anything, as before.

@Suite("bm runtime arguments with declared types")
struct BMArgumentTypesTests {
    /// A host with an initializer for ArgumentDetail declaring `id: integer`
    /// and `options: table?`, registered at wiring.lua:1.
    func typedHost() throws -> ScriptHost {
        let host = try makeHost()
        host.expose(LuaExposedType(ArgumentDetail.self).property("id", \.id)
            .constructor(arguments: ["id"]) { args in ArgumentDetail(id: try args.get(1)) })
        try host.lua("""
            bm.initializer { type = "ArgumentDetail", arguments = { "id: integer", "options : table?" },
              init = function(_, id, options) assert(math.type(id) == "integer"); return ArgumentDetail.new(id) end }
            """, file: "wiring.lua")
        return host
    }

    @Test func valuesOfTheDeclaredTypesPass() throws {
        let host = try typedHost()
        #expect(try host.lua("return bm.resolve('ArgumentDetail', { arguments = { 7, {} } }).id == 7") == [.boolean(true)])
        // An integral float as an integer (as luaL_checkinteger takes it).
        #expect(try host.lua("return bm.resolve('ArgumentDetail', { arguments = { 8.0, {} } }).id == 8") == [.boolean(true)])
        #expect(try host.registry.resolve(ArgumentDetail.self, arguments: 9, [String: Int]()).id == 9)
        // nil (a Swift Optional's none) for an optional argument.
        #expect(try host.registry.resolve(ArgumentDetail.self, arguments: 10, [String: Int]?.none).id == 10)
    }

    /// From Lua: the Lua type given, the type declared, the argument's
    /// place and name, and the registration's file:line.
    @Test func aScriptsValueOfAnotherTypeNamesBothSides() throws {
        let host = try typedHost()
        #expect(host.failure("local d = bm.resolve('ArgumentDetail', { arguments = { 'seven', {} } })", file: "use.lua")?
            .contains("wiring.lua:1: the initializer for ArgumentDetail takes arguments (id: integer, options: table?), "
                + "but argument #1 (id) must be integer, got string") == true)
        #expect(host.failure("local d = bm.resolve('ArgumentDetail', { arguments = { 7.5, {} } })", file: "use.lua")?
            .contains("but argument #1 (id) must be integer, got number") == true)
        #expect(host.failure("local d = bm.resolve('ArgumentDetail', { arguments = { 7, 'x' } })", file: "use.lua")?
            .contains("but argument #2 (options) must be table or nil, got string") == true)
    }

    /// From Swift: the Swift type given (its value crossed into Lua as a
    /// string here, which `integer` refuses).
    @Test func aSwiftValueOfAnotherTypeNamesBothSides() throws {
        let host = try typedHost()
        do {
            _ = try host.registry.resolve(ArgumentDetail.self, arguments: "seven", [String: Int]())
            Issue.record("expected an error")
        } catch {
            #expect("\(error)" == "wiring.lua:1: the initializer for ArgumentDetail takes arguments (id: integer, options: table?), "
                + "but argument #1 (id) must be integer, got String")
        }
        do {
            _ = try host.registry.resolve(ArgumentDetail.self, arguments: 1, 2.5)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".hasSuffix("but argument #2 (options) must be table or nil, got Double"), "\(error)")
        }
    }

    /// A bare name takes any value, as before; `any` says so explicitly.
    @Test func undeclaredArgumentsTakeAnything() throws {
        let host = try makeHost()
        try host.lua("""
            bm.initializer { type = "Echo", arguments = { "a", "b: any" }, init = function(_, a, b) return { a = a, b = b } end }
            """)
        #expect(try host.lua("local e = bm.resolve('Echo', { arguments = { 'x', true } }); return e.a, e.b")
            == [.string("x"), .boolean(true)])
        #expect(try host.lua("local e = bm.resolve('Echo', { arguments = { 1, {} } }); return e.a, type(e.b)")
            == [.integer(1), .string("table")])
    }

    /// A declaration that is not `name` or `name: type` is an error at the
    /// field's line, naming the entry.
    @Test func aMalformedDeclarationIsRefusedAtTheField() throws {
        let host = try makeHost()
        #expect(host.failure("""
            bm.initializer { type = 'E',
              arguments = { 'id: int' }, init = print }
            """, file: "h.lua")
            == "h.lua:2: bm.initializer: arguments[1] must be \"name\" or \"name: type\" (type one of any, boolean, integer, "
                + "number, string, table, function, userdata, or an exposed class such as User, with ? to take nil too), got \"id: int\"")
        #expect(host.failure("bm.initializer { type = 'E', arguments = { 'id', ': string' }, init = print }", file: "h.lua")?
            .contains("arguments[2] must be \"name\" or \"name: type\"") == true)
        #expect(host.failure("bm.initializer { type = 'E', arguments = { 'a b: string' }, init = print }", file: "h.lua")?
            .contains("arguments[1] must be \"name\" or \"name: type\"") == true)
    }

    /// `bm.entries()` and the mismatch of counts show the declared types.
    @Test func theDeclaredTypesAreListed() throws {
        let host = try typedHost()
        #expect(try host.lua("""
            for _, e in ipairs(bm.entries()) do
              if e.type == "ArgumentDetail" then return table.concat(e.arguments, ", ") end
            end
            """) == [.string("id: integer, options: table?")])
    }

    @Test func declarationsParse() {
        let parsed = LuaArgumentDeclaration.parse(["id", "n:number", "o : table?", "x: unknown"])
        #expect(parsed.map(\.shown) == ["id", "n: number", "o: table?", "x: unknown"])
        #expect(parsed[2].optional && parsed[2].kind == .table)
        #expect(parsed[3].kind == nil)
        #expect(parsed[1].accepts(luaType: "number", isInteger: false))
        #expect(!parsed[1].accepts(luaType: "nil", isInteger: false))
        #expect(parsed[2].accepts(luaType: "nil", isInteger: false))
        let optionalInt = LuaArgumentDeclaration.luaType(ofSwift: "Int?")
        #expect(optionalInt?.kind == .integer && optionalInt?.optional == true)
        let dictionary = LuaArgumentDeclaration.luaType(ofSwift: "Dictionary<String, Int>")
        #expect(dictionary?.kind == .table && dictionary?.optional == false)
        #expect(LuaArgumentDeclaration.luaType(ofSwift: "ArgumentDetail") == nil)
    }
}

final class TypedFactoryCheckScreen: DefaultConstructible {
    @Injectable var makeDetail: (Int) throws -> ArgumentDetail
    init() {}
}

@Suite("bmlua check and declared argument types")
struct BMArgumentTypesCheckTests {
    func check(_ wiring: String, prepare: (ScriptHost) -> Void = { _ in }) throws -> [String] {
        let host = try makeHost()
        defer { host.unload() }
        host.registry.registerFactory(ArgumentDetail.self, arguments: Int.self)
        host.declare(TypedFactoryCheckScreen.self)
        prepare(host)
        let dir = try makeScripts(["wiring.lua": wiring])
        return try ScriptChecker(manifest: host.manifest())
            .check(directory: dir, limits: LuaLimits(maxMemory: 64 << 20, maxInstructions: 2_000_000))
            .map { $0.description.replacingOccurrences(of: dir, with: "$") }
    }

    /// The factory gives an `Int`, a Lua integer: a script declaring
    /// `string` for it is an error at the initializer's line.
    @Test func aFactoryArgumentOfAnotherTypeIsAnErrorAtTheInitializer() throws {
        let problems = try check("""
            local unused = 0
            bm.initializer { type = "ArgumentDetail", arguments = { "id: string" }, init = function(_, id) return {} end }
            """)
        #expect(problems.contains("$/wiring.lua:2: error: the initializer for ArgumentDetail takes arguments (id: string), but "
            + "TypedFactoryCheckScreen.makeDetail, its factory (Int) throws -> ArgumentDetail, gives argument #1 (id) Int "
            + "(a Lua integer), expected string"), "\(problems)")
        for fits in ["id: integer", "id: number", "id: any", "id"] {
            let clean = try check("""
                bm.initializer { type = "ArgumentDetail", arguments = { "\(fits)" }, init = function(_, id) return {} end }
                """)
            #expect(!clean.contains { $0.contains("gives argument") }, "\(fits): \(clean)")
        }
    }

    /// A `bm.resolve` the check runs (at load or in the dry run) with a
    /// literal argument of another type: an error at the call's line.
    @Test func aResolutionWithALiteralOfAnotherTypeIsAnError() throws {
        let problems = try check("""
            bm.initializer { type = "ArgumentDetail", arguments = { "id: integer" }, init = function(_, id) return {} end }
            bm.initializer { type = "Screen", init = function()
              return bm.resolve("ArgumentDetail", { arguments = { "seven" } })
            end }
            """)
        #expect(problems.contains { $0.hasPrefix("$/wiring.lua:3: error:")
            && $0.contains("wiring.lua:1: the initializer for ArgumentDetail takes arguments (id: integer), but argument #1 (id) "
                + "must be integer, got string") }, "\(problems)")
    }

    /// The app's own Swift registration (from the manifest, which records
    /// its argument types) taking other arguments than the factory gives:
    /// an error at the Swift registration's place, naming both sides.
    @Test func aSwiftRegistrationOfOtherArgumentsIsAnError() throws {
        let typed = try check("-- no wiring\n") { host in
            host.registry.register(ArgumentDetail.self, arguments: String.self, fileID: "App/Wiring.swift", line: 9) { _, _ in
                ArgumentDetail(id: 1)
            }
        }
        #expect(typed.contains("App/Wiring.swift:9: error: the initializer for ArgumentDetail takes arguments (String), but "
            + "TypedFactoryCheckScreen.makeDetail, its factory (Int) throws -> ArgumentDetail, calls it with (Int)"), "\(typed)")
        let counted = try check("-- no wiring\n") { host in
            host.registry.register(ArgumentDetail.self, arguments: Int.self, Int.self, fileID: "App/Wiring.swift", line: 12) { _, a, _ in
                ArgumentDetail(id: a)
            }
        }
        #expect(counted.contains { $0.hasPrefix("App/Wiring.swift:12: error: the initializer for ArgumentDetail takes arguments (Int, Int), but") },
            "\(counted)")
        let clean = try check("-- no wiring\n") { host in
            host.registry.register(ArgumentDetail.self, arguments: Int.self, fileID: "App/Wiring.swift", line: 15) { _, a in
                ArgumentDetail(id: a)
            }
        }
        #expect(!clean.contains { $0.contains("calls it with") }, "\(clean)")
    }
}
