import Foundation
import Testing
@testable import BloodMagicLua

/// `bmlua check` and resolvers: a property a `bm.resolver` (or the app's
/// `registry.addResolver`) serves is no finding; the resolvers are asked
/// as the registry asks them at run time, and only what none serves is.
@Suite("bmlua check: resolvers")
struct BMLuaCheckResolverTests {
    /// Scripts whose properties a resolver serves: they run cleanly.
    static let servedByAResolver = [
        "10-classes.lua": """
            VC = bm.class("VC", {
              logger = bm.spell.injectable("Logger"),
              clock = bm.spell.lazy("Clock"),
            })
            """,
        "20-resolver.lua": """
            bm.resolver(function(request)
              if request.type == "Logger" then
                return { name = request.container .. "." .. request.property }
              elseif request.type == "Clock" and request.sender ~= nil then
                return { now = 0 }
              end
              return bm.skip
            end)
            """,
    ]

    @Test func aFolderThatRunsCleanlyChecksClean() throws {
        let dir = try scratchDirectory(Self.servedByAResolver)
        let run = try bmlua(["--scripts", dir.path, "-e", "local vc = VC.new(); print(vc.logger.name, vc.clock.now)"])
        #expect(run.status == 0)
        #expect(run.stdout == "VC.logger\t0\n")
        let check = try bmlua(["check", dir.path])
        #expect(check.stdout == "")
        #expect(check.status == 0)
    }

    /// What every resolver skips is still a finding, an error at the property.
    @Test func whatNoResolverServesIsStillAnError() throws {
        var files = Self.servedByAResolver
        files["10-classes.lua"] = """
            VC = bm.class("VC", {
              logger = bm.spell.injectable("Logger"),
              clock = bm.spell.lazy("Clock"),
              mailer = bm.spell.injectable("Mailer"),
            })
            """
        let dir = try scratchDirectory(files)
        let check = try bmlua(["check", dir.path])
        #expect(check.status == 1)
        #expect(check.stdout.replacingOccurrences(of: dir.path, with: "$")
            == "$/10-classes.lua:4: error: VC.mailer: no initializer for Mailer in VC\n")
    }

    /// The manifest's Swift containers: a `bm.resolver` serving their
    /// properties is asked with the container's stand-in as the sender,
    /// and its value is checked against the property's type.
    @Test func swiftPropertiesServedByABMResolver() throws {
        let dir = try makeScripts(["wiring.lua": """
            bm.partial { type = "ManifestHeader", init = function() return { title = "x" } end }
            bm.resolver(function(request)
              if request.property == "loader" then return ManifestHTTPLoader.new() end
              if request.type == "ManifestCache" and request.container == "ManifestDetail" then
                return ManifestCache.new(request.sender and 1 or 0)
              end
              if request.type == "ManifestCache" then return "not a cache" end
              return bm.skip
            end)
            """])
        let problems = try ScriptChecker(manifest: try manifestAppHost().manifest()).check(directory: dir)
            .map { $0.description.replacingOccurrences(of: dir, with: "$") }
        // ManifestScreen.loader and ManifestDetail.cache are served; the
        // resolver gives ManifestScreen.cache a string.
        #expect(problems == [
            "$/wiring.lua:2: error: ManifestScreen.cache: the resolver registered at $/wiring.lua:2 returned a string, which is not a ManifestCache (make one with ManifestCache.new(...))",
        ])
    }

    /// The app's own resolvers cannot run in the check: a property they may
    /// serve is not reported (one that names its type serves only that).
    @Test func theAppsResolversMayServeWhatTheyName() throws {
        let host = try manifestAppHost()
        host.registry.addResolver(for: ManifestCache.self) { _ in ManifestCache(capacity: 1) }
        let typed = host.manifest()
        #expect(typed.registrations.map(\.kind) == ["resolver"])
        #expect(typed.registrations.first?.type == "ManifestCache")
        let wiring = ["wiring.lua": "bm.partial { type = 'ManifestHeader', init = function() return { title = 'x' } end }"]
        let dir = try makeScripts(wiring)
        let problems = try ScriptChecker(manifest: typed).check(directory: dir).map(\.message)
        #expect(problems == ["ManifestScreen.loader: no initializer for any ManifestLoader in ManifestScreen"])
        // A resolver that says nothing of its type may serve anything.
        let untyped = try manifestAppHost()
        untyped.registry.addResolver { _ in .skip }
        #expect(try ScriptChecker(manifest: untyped.manifest()).check(directory: dir) == [])
    }
}
