import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, runtime arguments typed with an exposed Swift class
// (`arguments = { "owner: ArgumentOwner" }`): the value must be an object of
// that class or of a subclass, checked when the initializer is called; the
// error names the argument, both types and the registration's file:line.
// `bmlua check` knows the class from the manifest and flags a name it does
// not list, with the closest one.

class ArgumentOwner: @unchecked Sendable {
    let label: String
    init(label: String) { self.label = label }
}

/// A subclass the bridge knows through its exposed superclass.
final class ArgumentAdmin: ArgumentOwner, @unchecked Sendable {}

final class ArgumentStranger: Sendable {}

@Suite("bm runtime arguments of exposed classes")
struct BMArgumentClassTests {
    /// A host exposing ArgumentOwner and ArgumentDetail, with an
    /// initializer of ArgumentDetail taking `owner: ArgumentOwner` and
    /// `id: integer`, registered at wiring.lua:1.
    func classHost() throws -> ScriptHost {
        let host = try makeHost()
        host.expose(LuaExposedType(ArgumentOwner.self).property("label", \.label)
            .constructor(arguments: ["label"]) { args in ArgumentOwner(label: try args.get(1)) })
        host.expose(LuaExposedType(ArgumentDetail.self).property("id", \.id)
            .constructor(arguments: ["id"]) { args in ArgumentDetail(id: try args.get(1)) })
        try host.lua("""
            bm.initializer { type = "ArgumentDetail", arguments = { "owner: ArgumentOwner", "id: integer" },
              init = function(_, owner, id) return ArgumentDetail.new(#owner.label + id) end }
            """, file: "wiring.lua")
        return host
    }

    @Test func anObjectOfTheClassOrASubclassPasses() throws {
        let host = try classHost()
        #expect(try host.lua("return bm.resolve('ArgumentDetail', { arguments = { ArgumentOwner.new('abc'), 1 } }).id")
            == [.integer(4)])
        #expect(try host.registry.resolve(ArgumentDetail.self, arguments: ArgumentOwner(label: "ab"), 1).id == 3)
        // A subclass the bridge knows (exposed through its superclass).
        #expect(try host.registry.resolve(ArgumentDetail.self, arguments: ArgumentAdmin(label: "a") as ArgumentOwner, 1).id == 2)
        #expect(try host.registry.resolve(ArgumentDetail.self, arguments: ArgumentAdmin(label: "a"), 1).id == 2)
    }

    /// Another class, or a Lua value: the argument's place and name, the
    /// class declared, the type given and the registration's file:line.
    @Test func aValueOfAnotherTypeNamesBothSides() throws {
        let host = try classHost()
        #expect(host.failure("local d = bm.resolve('ArgumentDetail', { arguments = { ArgumentDetail.new(1), 1 } })", file: "use.lua")?
            .contains("wiring.lua:1: the initializer for ArgumentDetail takes arguments (owner: ArgumentOwner, id: integer), "
                + "but argument #1 (owner) must be ArgumentOwner, got ArgumentDetail") == true)
        #expect(host.failure("local d = bm.resolve('ArgumentDetail', { arguments = { { label = 'x' }, 1 } })", file: "use.lua")?
            .contains("but argument #1 (owner) must be ArgumentOwner, got table") == true)
        do {
            _ = try host.registry.resolve(ArgumentDetail.self, arguments: ArgumentStranger(), 1)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".hasPrefix("wiring.lua:1: the initializer for ArgumentDetail takes arguments "
                + "(owner: ArgumentOwner, id: integer), but argument #1 (owner) must be ArgumentOwner, got ArgumentStranger"),
                "\(error)")
        }
    }

    /// A class the state does not expose: every call fails, saying so.
    @Test func aClassNotExposedFailsEveryCallSayingSo() throws {
        let host = try makeHost()
        host.expose(LuaExposedType(ArgumentOwner.self).constructor(arguments: ["label"]) { args in
            ArgumentOwner(label: try args.get(1))
        })
        try host.lua("""
            bm.initializer { type = "Greeting", arguments = { "owner: ArgumentOwnr?" }, init = function() return {} end }
            """, file: "w.lua")
        #expect(host.failure("bm.resolve('Greeting', { arguments = { ArgumentOwner.new('a') } })")?
            .contains("w.lua:1: the initializer for Greeting takes arguments (owner: ArgumentOwnr?), but argument #1 (owner) "
                + "must be ArgumentOwnr or nil (no class ArgumentOwnr is exposed to Lua), got ArgumentOwner") == true)
    }

    /// `bm.entries()` (and so `bmlua explain`) lists the class as declared;
    /// a lower-case type that is none of Lua's is still refused.
    @Test func theDeclaredClassIsListedAndALowerCaseTypoRefused() throws {
        let host = try classHost()
        #expect(try host.lua("""
            for _, e in ipairs(bm.entries()) do
              if e.type == "ArgumentDetail" then return table.concat(e.arguments, ", ") end
            end
            """) == [.string("owner: ArgumentOwner, id: integer")])
        #expect(host.failure("bm.initializer { type = 'E', arguments = { 'o: argumentOwner' }, init = print }", file: "h.lua")?
            .contains("arguments[1] must be \"name\" or \"name: type\"") == true)
        // `bmlua explain` lists it as declared.
        let explained = host.explain(SpellTypeKey(name: "ArgumentDetail"), container: nil).description
        #expect(explained.contains("taking (owner: ArgumentOwner, id: integer)"), "\(explained)")
        let parsed = LuaArgumentDeclaration("user : User?")
        #expect(parsed.className == "User" && parsed.optional && parsed.kind == .userdata && parsed.shown == "user: User?")
    }
}

final class OwnerFactoryCheckScreen: DefaultConstructible {
    @Injectable var makeDetail: (ArgumentOwner) throws -> ArgumentDetail
    init() {}
}

@Suite("bmlua check and arguments of exposed classes")
struct BMArgumentClassCheckTests {
    func check(_ wiring: String) throws -> [String] {
        let host = try makeHost()
        defer { host.unload() }
        host.expose(LuaExposedType(ArgumentOwner.self).property("label", \.label)
            .constructor(arguments: ["label"]) { args in ArgumentOwner(label: try args.get(1)) })
        host.registry.registerFactory(ArgumentDetail.self, arguments: ArgumentOwner.self)
        host.declare(OwnerFactoryCheckScreen.self)
        let dir = try makeScripts(["wiring.lua": wiring])
        return try ScriptChecker(manifest: host.manifest())
            .check(directory: dir, limits: LuaLimits(maxMemory: 64 << 20, maxInstructions: 2_000_000))
            .map { $0.description.replacingOccurrences(of: dir, with: "$") }
    }

    /// A class the manifest does not list: an error at the registration,
    /// with the closest exposed class.
    @Test func anUnknownClassIsAnErrorWithTheClosestName() throws {
        let problems = try check("""
            local unused = 0
            bm.initializer { type = "ArgumentDetail", arguments = { "owner: ArgumentOwnr" }, init = function() return {} end }
            """)
        #expect(problems.contains("$/wiring.lua:2: error: the initializer for ArgumentDetail declares argument #1 (owner) as "
            + "ArgumentOwnr, which is not a class the app exposes to Lua (closest: ArgumentOwner)"), "\(problems)")
    }

    /// The factory gives an ArgumentOwner: declaring it is clean, and a
    /// resolution the check runs with the class's stand-in passes; a
    /// Lua type where the factory gives the class is an error.
    @Test func theFactorysClassFitsAndALuaTypeDoesNot() throws {
        let clean = try check("""
            bm.initializer { type = "ArgumentDetail", arguments = { "owner: ArgumentOwner" }, init = function() return {} end }
            bm.initializer { type = "Screen", init = function()
              return bm.resolve("ArgumentDetail", { arguments = { ArgumentOwner.new("a") } })
            end }
            """)
        #expect(!clean.contains { $0.contains("error") }, "\(clean)")
        let wrong = try check("""
            bm.initializer { type = "ArgumentDetail", arguments = { "owner: string" }, init = function() return {} end }
            """)
        #expect(wrong.contains { $0.contains("gives argument #1 (owner) ArgumentOwner") }, "\(wrong)")
    }
}

@Suite("bmlua types and arguments of exposed classes")
struct BMArgumentClassTypesTests {
    /// The annotations `bmlua types` writes document the form on the
    /// `arguments` field of a registration.
    @Test func theAnnotationsDocumentAnExposedClassArgument() throws {
        let host = try makeHost()
        let text = try host.annotations()
        #expect(text.contains("an exposed Swift class (\"owner: User\": an object of it or of a subclass)"))
    }
}
