import Foundation
import Testing
@testable import BloodMagicLua

/// An exposed type with writable, typed members.
final class ManifestRequestOptions {
    var timeout: Double = 10
    var label: String?
    var retries = 0
    init() {}
}

/// Typed methods may take a ManifestCache.
extension ManifestCache: LuaExposable {}

/// A host that exposes ``ManifestRequestOptions`` as `Options` beside the
/// manifest app's types.
func typedAppHost() throws -> ScriptHost {
    let host = try manifestAppHost()
    host.expose(LuaExposedType(ManifestRequestOptions.self, name: "Options")
        .constructor(arguments: []) { _ in ManifestRequestOptions() }
        .property("timeout", \.timeout)
        .property("label", \.label)
        .method("retry", arguments: ["times"]) { (options, times: Int) in options.retries = times }
        .method("attach", arguments: ["cache"]) { (_: ManifestRequestOptions, _: ManifestCache) in })
    host.expose(LuaExposedType(ManifestRequestOptions.self, name: "Request")
        .constructor(arguments: ["timeout", "label?"]) { (timeout: Double, label: String?) in
            let options = ManifestRequestOptions()
            options.timeout = timeout
            options.label = label
            return options
        })
    return host
}

/// `check` holds values to the manifest's types as the bridge does at run
/// time: the same message, at the same line.
@Suite("ScriptChecker: the manifest's types")
struct ScriptCheckerManifestTypeTests {
    static let mistakes = [
        "a.lua": "local options = Options.new()\noptions.timeout = \"30s\"\n",
        "b.lua": "local options = Options.new()\n\noptions.timeout = nil\n",
        "c.lua": "local options = Options.new()\noptions:retry(\"twice\")\n",
        "d.lua": "local options = Options.new()\noptions:attach(ManifestHTTPLoader.new())\n",
        "e.lua": "local options = Options.new()\noptions.label = 42\n",
        "f.lua": "local request = Request.new(\"30s\")\n",
        "g.lua": "\nlocal request = Request.new { timeout = 5, label = 42 }\n",
    ]

    @Test func wrongTypesAreFoundAsTheBridgeRaisesThem() throws {
        let dir = try makeScripts(Self.mistakes)
        let checked = try ScriptChecker(manifest: try typedAppHost().manifest().withoutContainers())
            .check(directory: dir).map { $0.description.replacingOccurrences(of: dir, with: "$") }
        #expect(checked == [
            "$/a.lua:2: error: Options.timeout: bad value (expected number, got string)",
            "$/b.lua:3: error: Options.timeout: bad value (expected number, got nil)",
            "$/c.lua:2: error: Options.retry: bad argument #1 'times' (expected integer, got string)",
            "$/d.lua:2: error: Options.attach: bad argument #1 'cache' (expected ManifestCache, got ManifestHTTPLoader)",
            "$/e.lua:2: error: Options.label: bad value (expected string, got number)",
            "$/f.lua:1: error: Request.new: bad argument #1 'timeout' (expected number, got string)",
            "$/g.lua:2: error: Request.new: bad argument 'label' (expected string, got number)",
        ])
        // What the real bridge raises for each, running the same files.
        for name in Self.mistakes.keys.sorted() {
            let host = try typedAppHost()
            #expect {
                try host.run(file: dir + "/" + name)
            } throws: { error in
                let message = ((error as? LuaError)?.message ?? "").replacingOccurrences(of: dir, with: "$")
                return checked.contains { $0.replacingOccurrences(of: " error:", with: "") == message }
            }
        }
    }

    @Test func valuesOfTheRightTypesAreClean() throws {
        let dir = try makeScripts(["ok.lua": """
            local options = Options.new()
            options.timeout = 3
            options.timeout = 2.5
            options.label = "x"
            options.label = nil
            options:retry(2)
            options:retry(2.0)
            options:attach(ManifestCache.new(1))
            """])
        let checked = try ScriptChecker(manifest: try typedAppHost().manifest().withoutContainers()).check(directory: dir)
        #expect(checked == [])
        try typedAppHost().run(file: dir + "/ok.lua")
    }

    /// A preference default of the wrong type for a Swift property: an
    /// error in the check, at the `default` field, and at run time (the
    /// read fails), naming the key and both types.
    @Test func aPreferenceDefaultOfTheWrongTypeIsAnErrorInBothPlaces() throws {
        let dir = try makeScripts(["prefs.lua": """
            bm.preference {
              container = "ManifestScreen",
              property = "volume",
              default = "7",
            }
            """])
        let checked = try ScriptChecker(manifest: try manifestAppHost().manifest()).check(directory: dir)
            .map { $0.description.replacingOccurrences(of: dir, with: "$") }.filter { $0.hasPrefix("$/prefs.lua") }
        #expect(checked == [
            "$/prefs.lua:4: error: ManifestScreen.volume: the default for preference \"volume\" set at $/prefs.lua:1 is a String, expected Int",
        ])
        let host = try makeHost(scripts: dir)
        try host.loadStartupScripts()
        let screen = Registry.withCurrent(host.registry) { ManifestScreen() }
        let read = Registry.withCurrent(host.registry) { Result { try screen.$volume.get() } }
        #expect {
            try read.get()
        } throws: { error in
            "\(error)" == "ManifestScreen.volume: the default for preference \"volume\" set at \(dir)/prefs.lua:1 is a String, expected Int"
        }
        // The right type is clean, and read.
        let fixed = try makeScripts(["prefs.lua": "bm.preference { container = 'ManifestScreen', property = 'volume', default = 7 }"])
        #expect(try ScriptChecker(manifest: try manifestAppHost().manifest()).check(directory: fixed)
            .filter { $0.file.hasSuffix("prefs.lua") } == [])
    }
}
