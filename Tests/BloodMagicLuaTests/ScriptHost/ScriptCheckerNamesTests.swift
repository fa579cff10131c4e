import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, names: the manifest carries them, and `bmlua check` reports a
// name nothing is registered under as an error at the property's place.

final class NamedCheckScreen: DefaultConstructible {
    @Injectable(named: .primary) var writes: NamedDatabase
    @Injectable(named: .replica) var reads: NamedDatabase
    init() {}
}

private func namedAppHost() throws -> ScriptHost {
    let host = try makeHost()
    host.registry.register(NamedDatabase.self, named: .replica) { _ in NamedDatabase(url: "replica") }
    host.declare(NamedCheckScreen.self)
    return host
}

@Suite("ScriptChecker and names")
struct ScriptCheckerNamesTests {
    func check(_ files: [String: String]) throws -> [String] {
        let dir = try makeScripts(files)
        let checker = ScriptChecker(manifest: try namedAppHost().manifest())
        return try checker.check(directory: dir, limits: LuaLimits(maxMemory: 64 << 20, maxInstructions: 2_000_000))
            .map { $0.description.replacingOccurrences(of: dir, with: "$") }
    }

    @Test func theManifestCarriesNamesOfPropertiesAndRegistrations() throws {
        let manifest = try namedAppHost().manifest()
        let screen = try #require(manifest.container(named: "NamedCheckScreen"))
        #expect(screen.properties.map { "\($0.name):\($0.named ?? "-")" } == ["reads:replica", "writes:primary"])
        let registration = try #require(manifest.registrations.first { $0.type == "NamedDatabase" })
        #expect(registration.named == "replica")
        let data = try manifest.jsonData()
        #expect(String(decoding: data, as: UTF8.self).contains("\"named\" : \"primary\""))
        #expect(try JSONDecoder().decode(AppManifest.self, from: data) == manifest)
    }

    @Test func aNameRegisteredByTheScriptsOrTheAppIsClean() throws {
        let problems = try check(["wiring.lua": """
            bm.initializer { type = "NamedDatabase", name = "primary", init = function() return nil end }
            """])
        #expect(!problems.contains { $0.contains("named") }, "\(problems)")
    }

    @Test func anUnknownNameIsAnErrorAtThePropertysPlace() throws {
        let problems = try check(["wiring.lua": """
            bm.initializer { type = "NamedDatabase", name = "primay", init = function() return nil end }
            local Shop = bm.class("Shop", {
              db = bm.spell.injectable { type = "Db", name = "backup" },
            })
            bm.initializer { type = "Db", name = "main", init = function() return 1 end }
            """])
        let swift = problems.first { $0.contains("NamedCheckScreen.writes") }
        #expect(swift?.contains("error: NamedCheckScreen.writes: no initializer for NamedDatabase named \"primary\" in NamedCheckScreen (names registered for NamedDatabase: \"replica\", \"primay\")") == true, "\(problems)")
        #expect(swift?.contains("ScriptCheckerNamesTests.swift:") == true)
        #expect(problems.contains("$/wiring.lua:3: error: Shop.db: no initializer for Db named \"backup\" in Shop (names registered for Db: \"main\")"), "\(problems)")
    }
}

// Issue 29, arguments: a property (which gives none) served by an
// initializer that takes arguments is a check error at the property's line.

final class ArgumentCheckScreen: DefaultConstructible {
    @Injectable var detail: ArgumentDetail
    init() {}
}

@Suite("ScriptChecker and arguments")
struct ScriptCheckerArgumentsTests {
    @Test func aPropertyServedByAnInitializerTakingArgumentsIsAnError() throws {
        let host = try makeHost()
        host.registry.register(ArgumentDetail.self, arguments: Int.self) { _, id in ArgumentDetail(id: id) }
        host.declare(ArgumentCheckScreen.self)
        let manifest = host.manifest()
        #expect(manifest.registrations.first { $0.type == "ArgumentDetail" }?.arguments == ["Int"])
        let dir = try makeScripts(["wiring.lua": """
            bm.initializer { type = "Detail", arguments = { "id" }, init = function(_, id) return id end }
            local Shop = bm.class("Shop", {
              detail = bm.spell.injectable("Detail"),
            })
            """])
        let problems = try ScriptChecker(manifest: manifest)
            .check(directory: dir, limits: LuaLimits(maxMemory: 64 << 20, maxInstructions: 2_000_000))
            .map { $0.description.replacingOccurrences(of: dir, with: "$") }
        #expect(problems.contains("$/wiring.lua:3: error: Shop.detail: the initializer for Detail registered at $/wiring.lua:1 takes arguments (id), which a property cannot give (resolve it with arguments, or declare the property as its factory)"), "\(problems)")
        #expect(problems.contains { $0.contains("ArgumentCheckScreen.detail: the initializer for ArgumentDetail registered at BloodMagicLuaTests/ScriptCheckerNamesTests.swift:") && $0.contains("takes arguments (Int)") }, "\(problems)")
    }
}
