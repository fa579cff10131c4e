import Foundation
import Testing
@testable import BloodMagicLua

// A small app, as a manifest sees it.

protocol ManifestLoader: AnyObject {}

final class ManifestCache {
    let capacity: Int
    init(capacity: Int) { self.capacity = capacity }
}

final class ManifestHTTPLoader: ManifestLoader {}

final class ManifestScreen: DefaultConstructible {
    @Injectable var loader: any ManifestLoader
    @Injectable var cache: ManifestCache
    @Injectable var analytics: ManifestCache?
    @Lazy var helper: ManifestHelper
    @Preference var volume: Int = 5
    @Final var title: String
    init() {}
}

class ManifestBase {
    @Injectable var cache: ManifestCache
    init() {}
}

final class ManifestDetail: ManifestBase, DefaultConstructible {
    @Partial var header: ManifestHeader
    override init() {}
}

final class ManifestHelper: DefaultConstructible {
    init() {}
}

struct ManifestHeader: Decodable {
    var title: String
}

/// A host that exposes the app's types, sets its global and declares its
/// containers, as an app does before writing its manifest.
func manifestAppHost() throws -> ScriptHost {
    let host = try makeHost()
    host.expose(LuaExposedType(ManifestCache.self)
        .constructor(arguments: ["capacity"]) { args in ManifestCache(capacity: try args.get(1)) }
        .property("capacity", \.capacity)
        .method("clear", arguments: []) { _, _ in })
    host.expose(LuaExposedType(ManifestHTTPLoader.self)
        .constructor(arguments: []) { _ in ManifestHTTPLoader() }
        .conforms(to: "ManifestLoader"))
    host.setGlobal("app", ["baseURL": LuaValue.string("https://example.com"), "retries": LuaValue.integer(3)])
    host.declare(ManifestScreen.self, ManifestDetail.self)
    return host
}

@Suite("ScriptChecker with the app's manifest")
struct ScriptCheckerManifestTests {
    func check(_ files: [String: String], manifest: AppManifest? = nil) throws -> [String] {
        let dir = try makeScripts(files)
        let checker = ScriptChecker(manifest: try manifest ?? manifestAppHost().manifest())
        return try checker.check(directory: dir, limits: LuaLimits(maxMemory: 64 << 20, maxInstructions: 2_000_000))
            .map { $0.description.replacingOccurrences(of: dir, with: "$") }
    }

    /// The wiring an app would ship: clean with the manifest.
    static let goodWiring: [String: String] = ["wiring.lua": """
        bm.singleton { type = "ManifestCache", init = function() return ManifestCache.new { capacity = app.retries } end }
        bm.initializer {
          protocols = { "ManifestLoader" },
          container = "ManifestScreen",
          init = function(screen) return ManifestHTTPLoader.new() end,
        }
        bm.hook { container = "ManifestScreen", property = "loader", fn = function(screen, loader) end }
        bm.preference { container = "ManifestScreen", property = "volume", default = 7 }
        bm.partial { type = "ManifestHeader", init = function() return { title = "x" } end }
        """]

    @Test func theManifestDescribesContainersTypesAndGlobals() throws {
        let manifest = try manifestAppHost().manifest()
        #expect(manifest.format == AppManifest.currentFormat)
        let screen = try #require(manifest.container(named: "ManifestScreen"))
        #expect(screen.properties.map(\.name) == ["analytics", "cache", "helper", "loader", "title", "volume"])
        let loader = try #require(screen.properties.first { $0.name == "loader" })
        #expect(loader.spell == .injectable)
        #expect(loader.protocols == ["ManifestLoader"])
        #expect(loader.swiftType == "any ManifestLoader")
        #expect(screen.properties.first { $0.name == "analytics" }?.optional == true)
        #expect(screen.properties.first { $0.name == "helper" }?.defaultConstructible == true)
        #expect(screen.properties.first { $0.name == "volume" }?.key == "volume")
        #expect(screen.source?.hasPrefix("BloodMagicLuaTests/ScriptCheckerManifestTests.swift:") == true)
        let detail = try #require(manifest.container(named: "ManifestDetail"))
        #expect(detail.superclasses == ["ManifestBase"])
        #expect(detail.properties.map { "\($0.name):\($0.declaredIn)" } == ["cache:ManifestBase", "header:ManifestDetail"])
        let cache = try #require(manifest.type(named: "ManifestCache"))
        #expect(cache.constructor?.arguments == [.init(name: "capacity")])
        #expect(cache.properties == [.init(name: "capacity", type: "Int", writable: false)])
        #expect(cache.methods == [.init(name: "clear", arguments: [], returns: "Void")])
        #expect(manifest.type(named: "ManifestHTTPLoader")?.protocols == ["ManifestLoader"])
        #expect(manifest.globals.first?.name == "app")
        #expect(manifest.globals.first?.value.fields?["retries"]?.kind == "integer")
        // Written and read back, it is the same manifest.
        let data = try manifest.jsonData()
        #expect(try JSONDecoder().decode(AppManifest.self, from: data) == manifest)
    }

    @Test func aNewerFormatIsRefusedByName() throws {
        let dir = try makeScripts(["app.json": #"{ "format": 99, "types": [] }"#])
        #expect {
            try AppManifest.read(from: dir + "/app.json")
        } throws: { error in
            "\(error)".contains("manifest format 99 is not one this BloodMagic reads")
        }
    }

    @Test func goodWiringIsClean() throws {
        #expect(try check(Self.goodWiring) == [])
    }

    /// Without the manifest the Swift containers and types are unknown:
    /// the report lists them as unchecked, and finds no problem in wiring
    /// that is good.
    @Test func withoutTheManifestSwiftContainersAreUnchecked() throws {
        let dir = try makeScripts(Self.goodWiring)
        let report = try ScriptChecker().report(directory: dir)
        #expect(report.problems == [])
        #expect(report.uncheckedNames.contains("ManifestScreen"))
        #expect(report.uncheckedNote()?.contains("ManifestScreen") == true)
        // With the manifest, nothing is left unchecked.
        let checked = try ScriptChecker(manifest: try manifestAppHost().manifest()).report(directory: dir)
        #expect(checked.uncheckedNames == [])
    }

    @Test func hooksAndPreferencesAreCheckedAgainstTheSwiftProperties() throws {
        var files = Self.goodWiring
        files["more.lua"] = """
            bm.hook { container = "ManifestScreen", property = "loadr", fn = print }
            bm.hook { container = "ManifestScren", property = "loader", fn = print }
            bm.preference { container = "ManifestScreen", property = "title", default = "x" }
            """
        #expect(try check(files) == [
            "$/more.lua:1: warning: bm.hook for ManifestScreen.loadr: ManifestScreen declares no injected property 'loadr' (closest: loader)",
            "$/more.lua:2: warning: bm.hook names container ManifestScren, which neither a Lua class nor the app's manifest declares (closest: ManifestScreen)",
            "$/more.lua:3: warning: bm.preference for ManifestScreen.title: ManifestScreen declares no preference property 'title'",
        ])
    }

    @Test func unservableSwiftPropertiesAreReportedAtTheirDeclaration() throws {
        let lines = try check(["wiring.lua": "bm.partial { type = 'ManifestHeader', init = function() return {} end }"])
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.hasPrefix("BloodMagicLuaTests/ScriptCheckerManifestTests.swift:") })
        #expect(lines.contains { $0.hasSuffix("error: ManifestScreen.loader: no initializer for any ManifestLoader in ManifestScreen") })
        #expect(lines.contains { $0.hasSuffix("error: ManifestScreen.cache: no initializer for ManifestCache in ManifestScreen") })
        #expect(lines.contains { $0.hasSuffix("error: ManifestDetail.cache: no initializer for ManifestCache in ManifestDetail") })
    }

    @Test func initializersAreCheckedAgainstTheRealPropertyTypes() throws {
        var files = Self.goodWiring
        files["wiring.lua"] = files["wiring.lua"]!.replacingOccurrences(
            of: "return ManifestHTTPLoader.new()", with: "return ManifestCache.new(1)")
        files["more.lua"] = """
            bm.initializer { type = "ManifestLoader", container = "ManifestScreen", init = function() return nil end }
            bm.initializer { type = "ManifestHelper", container = "ManifestScreen", init = function() return "helper" end }
            """
        #expect(try check(files) == [
            "$/more.lua:1: warning: bm.initializer for ManifestLoader in ManifestScreen: ManifestScreen has no lazy or injectable property of type ManifestLoader (closest: loader, declared as any ManifestLoader)",
            "$/wiring.lua:5: error: ManifestScreen.loader: the initializer for any ManifestLoader registered at $/wiring.lua:2 returned ManifestCache, which does not conform to ManifestLoader (declare it with .conforms(to:))",
        ])
    }

    @Test func standInsCheckMembersAndArgumentsAsTheBridgeDoes() throws {
        let lines = try check(["wiring.lua": """
            bm.singleton { type = "ManifestCache", init = function()
              local cache = ManifestCache.new { capacty = 3 }
              return cache
            end }
            bm.initializer { type = "Size", init = function()
              local size = ManifestHTTPLoader.new():size()
              return size
            end }
            bm.initializer { type = "Clear", init = function()
              local cleared = ManifestCache.new(1):clear(2)
              return cleared
            end }
            bm.initializer { type = "Capacity", init = function()
              local capacity = ManifestCache.new(1).capacty
              return capacity
            end }
            """], manifest: try manifestAppHost().manifest().withoutContainers())
        #expect(lines == [
            "$/wiring.lua:2: error: ManifestCache.new: unknown argument 'capacty' (expected capacity) (closest: capacity) (dry run: the initializer for ManifestCache)",
            "$/wiring.lua:6: error: attempt to call a nil value (method 'size') (dry run: the initializer for Size)",
            "$/wiring.lua:10: error: ManifestCache.clear: expected 0 arguments, got 1 (dry run: the initializer for Clear)",
            "$/wiring.lua:14: error: ManifestCache has no property capacty (closest: capacity) (dry run: the initializer for Capacity)",
        ])
    }

    @Test func theAppsSwiftRegistrationsServeProperties() throws {
        let host = try manifestAppHost()
        host.registry.register(ManifestCache.self) { _ in ManifestCache(capacity: 1) }
        let manifest = host.manifest()
        #expect(manifest.registrations.map(\.type) == ["ManifestCache"])
        let lines = try check(["wiring.lua": """
            bm.initializer { protocols = { "ManifestLoader" }, container = "ManifestScreen", init = function() return ManifestHTTPLoader.new() end }
            bm.partial { type = "ManifestHeader", init = function() return { title = "x" } end }
            """], manifest: manifest)
        #expect(lines == [])
    }

    /// Issue 30: a script's read is synchronous, so one of an async Swift
    /// registration (made only with `await`) is a finding; the manifest says
    /// which registrations are async.
    @Test func aScriptReadingAnAsyncSwiftRegistrationIsAFinding() throws {
        let host = try manifestAppHost()
        host.registry.registerAsync(ManifestCache.self) { ManifestCache(capacity: 1) }
        let manifest = host.manifest()
        #expect(manifest.registrations.map(\.async) == [true])
        #expect(try JSONDecoder().decode(AppManifest.self, from: manifest.jsonData()) == manifest)
        let lines = try check(["wiring.lua": """
            bm.initializer {
              protocols = { "ManifestLoader" }, container = "ManifestScreen",
              init = function() local cache = bm.resolve("ManifestCache"); return ManifestHTTPLoader.new() end,
            }
            bm.partial { type = "ManifestHeader", init = function() return { title = "x" } end }
            """], manifest: manifest)
        #expect(lines.count == 1)
        #expect(lines.first?.contains("ManifestCache is registered in Swift with an async initializer at ") == true, "\(lines)")
        #expect(lines.first?.contains("registry.prepare()") == true)
    }
}

extension AppManifest {
    /// The manifest without its containers (to check types alone).
    func withoutContainers() -> AppManifest {
        var copy = self
        copy.containers = []
        return copy
    }
}
