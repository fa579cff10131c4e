import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, runtime arguments across the bridge the other way: Swift
// resolves a Lua initializer that takes arguments (`resolve(_:arguments:)`,
// and a factory property Swift declares with `registerFactory`); the
// arguments cross into Lua, and a mismatch names both sides and the
// registration's file:line.

/// A Swift value that cannot cross into Lua (not exposed, not LuaPushable, not Encodable).
struct OpaqueToken {
    let raw: Int
}

final class FactoryScreen {
    @Injectable var makeDetail: (Int) throws -> ArgumentDetail
    @Injectable var makeScaled: (Int, Int) throws -> ArgumentDetail
    @Injectable var makeSummed: (Int, Int, Int) throws -> ArgumentDetail
}

/// A host where `ArgumentDetail.new(id)` makes a Swift detail.
private func detailHost() throws -> ScriptHost {
    let host = try makeHost()
    host.expose(LuaExposedType(ArgumentDetail.self).constructor(arguments: ["id"]) { args in ArgumentDetail(id: try args.get(1)) })
    return host
}

@Suite("Swift resolves Lua initializers with arguments")
struct BMArgumentsFromSwiftTests {
    @Test func aWrongCountFromSwiftNamesBothSides() throws {
        let host = try detailHost()
        try host.lua("""
            bm.initializer { type = "ArgumentDetail", arguments = { "id" },
              init = function(_, id) return ArgumentDetail.new(id) end }
            """, file: "wiring.lua")
        #expect(throws: SpellError.argumentMismatch(
            type: "ArgumentDetail", source: "wiring.lua:1", expected: ["id"], given: ["Int", "Int"])
        ) { try host.registry.resolve(ArgumentDetail.self, arguments: 1, 2) }
        #expect(throws: SpellError.argumentMismatch(
            type: "ArgumentDetail", source: "wiring.lua:1", expected: ["id"], given: ["Int", "Int", "String"])
        ) { try host.registry.resolve(ArgumentDetail.self, arguments: 1, 2, "three") }
    }

    /// An argument Lua cannot take: the message names its position, the
    /// script's name for it, its Swift type and the registration.
    @Test func anArgumentThatCannotCrossNamesBothSides() throws {
        let host = try detailHost()
        try host.lua("""
            bm.initializer { type = "ArgumentDetail", arguments = { "token" },
              init = function(_, token) return ArgumentDetail.new(1) end }
            """, file: "wiring.lua")
        do {
            _ = try host.registry.resolve(ArgumentDetail.self, arguments: OpaqueToken(raw: 1))
            Issue.record("expected an error")
        } catch {
            #expect("\(error)" == "wiring.lua:1: the initializer for ArgumentDetail takes arguments (token), but argument #1 "
                + "(token) cannot be given to it: a value of Swift type OpaqueToken cannot cross into Lua (expose its type, or "
                + "make it LuaPushable or Encodable)")
        }
    }

    /// Factory properties of a Lua registration: Swift declares their
    /// argument types once; each call resolves the registration in force.
    @Test func aDeclaredFactoryIsServedByLua() throws {
        let host = try detailHost()
        host.registry.registerFactory(ArgumentDetail.self, arguments: Int.self)
        host.registry.registerFactory(ArgumentDetail.self, arguments: Int.self, Int.self, Int.self)
        try host.lua("""
            bm.initializer { type = "ArgumentDetail", arguments = { "id" }, init = function(_, id) return ArgumentDetail.new(id * 2) end }
            """, file: "wiring.lua")
        let screen = Registry.withCurrent(host.registry) { FactoryScreen() }
        #expect(try screen.makeDetail(21).id == 42)
        // The wrong count for the registration in force: both sides named.
        #expect(throws: SpellError.argumentMismatch(
            type: "ArgumentDetail", source: "wiring.lua:1", expected: ["id"], given: ["Int", "Int", "Int"])
        ) { try screen.makeSummed(1, 2, 3) }
        // Not declared: the property says nothing serves its type.
        #expect(throws: SpellError.self) { try screen.$makeScaled.value() }
        try host.lua("""
            bm.initializer { type = "ArgumentDetail", arguments = { "a", "b", "c" },
              init = function(_, a, b, c) return ArgumentDetail.new(a + b + c) end }
            """, file: "more.lua")
        #expect(try screen.makeSummed(1, 2, 3).id == 6)
    }
}

@Suite("Swift factories of Lua initializers across a reload", .serialized)
struct BMArgumentsFromSwiftReloadTests {
    /// The factory a container holds calls the registration in force: after
    /// a reload, the new scripts' initializer.
    @Test func aReloadChangesWhatTheFactoryCalls() throws {
        let folder = try ScriptFolder(["10-d.lua": """
            bm.initializer { type = "ArgumentDetail", arguments = { "id" }, init = function(_, id) return ArgumentDetail.new(id) end }
            """])
        let host = try loadedHost(folder) { host in
            host.expose(LuaExposedType(ArgumentDetail.self).constructor(arguments: ["id"]) { args in ArgumentDetail(id: try args.get(1)) })
            host.registry.registerFactory(ArgumentDetail.self, arguments: Int.self)
        }
        defer { host.unload() }
        let screen = Registry.withCurrent(host.registry) { FactoryScreen() }
        #expect(try screen.makeDetail(5).id == 5)
        try folder.write("10-d.lua", """
            bm.initializer { type = "ArgumentDetail", arguments = { "id" }, init = function(_, id) return ArgumentDetail.new(id + 100) end }
            """)
        try host.reload()
        #expect(try screen.makeDetail(5).id == 105)
        // A reload that drops the registration: the factory says nothing serves it.
        try folder.write("10-d.lua", "-- nothing\n")
        try host.reload()
        #expect(throws: (any Error).self) { try screen.makeDetail(5) }
    }
}

@Suite("The manifest and registrations of three or four arguments")
struct BMMoreArgumentsManifestTests {
    /// The manifest lists each argument's Swift type, and a declared factory
    /// as a registration of its function type.
    @Test func theManifestListsTheArguments() throws {
        let host = try makeHost()
        defer { host.unload() }
        host.registry.register(ArgumentDetail.self, arguments: String.self, Int.self, Bool.self, Double.self) { _, _, id, _, _ in
            ArgumentDetail(id: id)
        }
        host.registry.registerFactory(ArgumentDetail.self, arguments: Int.self, Int.self, Int.self)
        let manifest = host.manifest()
        #expect(manifest.registrations.first { $0.type == "ArgumentDetail" }?.arguments == ["String", "Int", "Bool", "Double"])
        #expect(manifest.registrations.contains { $0.type == "(Int, Int, Int) throws -> ArgumentDetail" },
            "\(manifest.registrations.map { $0.type ?? "-" })")
        // A script resolves the Swift registration with four Lua values.
        host.expose(LuaExposedType(ArgumentDetail.self).property("id", \.id))
        #expect(try host.lua("return bm.resolve('ArgumentDetail', { arguments = { 'a', 5, true, 1.5 } }).id") == [.integer(5)])
        #expect(host.failure("local d = bm.resolve('ArgumentDetail', { arguments = { 'a', 5 } })")?
            .contains("takes arguments (String, Int, Bool, Double), but it was resolved with (string, number)") == true)
    }
}

final class FactoryCheckScreen: DefaultConstructible {
    @Injectable var makeDetail: (Int) throws -> ArgumentDetail
    init() {}
}

final class PairFactoryCheckScreen: DefaultConstructible {
    @Injectable var makePair: (Int, Int) throws -> ArgumentDetail
    init() {}
}

@Suite("bmlua check and factories of scripts' initializers")
struct BMFactoryCheckTests {
    func check(declaringFactory: Bool) throws -> [String] {
        let host = try makeHost()
        defer { host.unload() }
        if declaringFactory { host.registry.registerFactory(ArgumentDetail.self, arguments: Int.self) }
        host.declare(FactoryCheckScreen.self)
        let dir = try makeScripts(["wiring.lua": """
            bm.initializer { type = "ArgumentDetail", arguments = { "id" }, init = function(_, id) return {} end }
            """])
        return try ScriptChecker(manifest: host.manifest())
            .check(directory: dir, limits: LuaLimits(maxMemory: 64 << 20, maxInstructions: 2_000_000))
            .map { $0.description.replacingOccurrences(of: dir, with: "$") }
    }

    /// The declared factory is in the manifest, so check knows the property
    /// is served; without it, the property is a finding.
    @Test func aDeclaredFactoryServesTheProperty() throws {
        let served = try check(declaringFactory: true)
        #expect(!served.contains { $0.contains("FactoryCheckScreen.makeDetail") }, "\(served)")
        let unserved = try check(declaringFactory: false)
        #expect(unserved.contains { $0.contains("error: FactoryCheckScreen.makeDetail: no initializer for (Int) throws -> ArgumentDetail") },
            "\(unserved)")
    }

    /// A declared factory of two arguments for a script initializer taking
    /// one: an error at the initializer's line naming both sides.
    @Test func aFactoryOfAnotherCountIsAnErrorAtTheInitializer() throws {
        let host = try makeHost()
        defer { host.unload() }
        host.registry.registerFactory(ArgumentDetail.self, arguments: Int.self, Int.self)
        host.declare(PairFactoryCheckScreen.self)
        let dir = try makeScripts(["wiring.lua": """
            local unused = 0
            bm.initializer { type = "ArgumentDetail", arguments = { "id" }, init = function(_, id) return {} end }
            """])
        let problems = try ScriptChecker(manifest: host.manifest())
            .check(directory: dir, limits: LuaLimits(maxMemory: 64 << 20, maxInstructions: 2_000_000))
            .map { $0.description.replacingOccurrences(of: dir, with: "$") }
        #expect(problems.contains("$/wiring.lua:2: error: the initializer for ArgumentDetail takes arguments (id), but "
            + "PairFactoryCheckScreen.makePair, its factory (Int, Int) throws -> ArgumentDetail, calls it with (Int, Int)"),
            "\(problems)")
        // The same count is clean.
        let clean = try check(declaringFactory: true)
        #expect(!clean.contains { $0.contains("calls it with") }, "\(clean)")
    }

    @Test func factoryTypeShapes() {
        /// "arguments | separated => result", or nil.
        func shape(_ spelling: String) -> String? {
            FactoryTypeShape(spelling).map { $0.arguments.joined(separator: " | ") + " => " + $0.result }
        }
        #expect(shape("(Int) throws -> ArgumentDetail") == "Int => ArgumentDetail")
        #expect(shape("(Int, Dictionary<String, Int>, (Int) -> Void) -> Outbox.Message")
            == "Int | Dictionary<String, Int> | (Int) -> Void => Outbox.Message")
        #expect(shape("() async throws -> A") == " => A")
        #expect(shape("ArgumentDetail") == nil)
        #expect(shape("(Int, String)") == nil)
        #expect(shape("(Int, ) -> A") == nil)
        #expect(shape("((((") == nil)
        #expect(shape("Optional<(Int) -> A>") == nil)
    }
}
