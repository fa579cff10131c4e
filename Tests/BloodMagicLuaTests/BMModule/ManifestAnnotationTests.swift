import Foundation
import Testing
@testable import BloodMagicLua
import TestSupport

// `bmlua types --manifest app.json`: annotations from an app's manifest are
// the live host's annotations, because the live host describes itself as a
// manifest first.

private final class RenamedClient: LuaExposable {
    var peer: RenamedClient?
    var peers: [RenamedClient] = []
    var scores: [String: Double] = [:]
}

private struct ClientConfig: Decodable {
    var url: String
}

private final class DecodedClient: LuaExposable {}

private let shippedFeedReaderManifest = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Examples/FeedReader/app-manifest.json")

@Suite("annotations from an app manifest")
struct ManifestAnnotationTests {
    private func exposingHost() throws -> ScriptHost {
        let host = try makeHost()
        host.expose(LuaExposedType(RenamedClient.self, name: "Client")
            .constructor(arguments: ["baseURL", "retries?"]) { _ in RenamedClient() }
            .property("peer", get: { $0.peer })
            .property("peers", get: { $0.peers })
            .property("scores", get: { $0.scores })
            .method("fetch", arguments: ["path"]) { _, _ in "body" }
            .method("close") { _, _ in })
        host.expose(LuaExposedType(DecodedClient.self).constructor(decoding: ClientConfig.self) { _ in DecodedClient() })
        host.setGlobal("app", ["feedsURL": "https://example.org", "mirror": "https://example.net"])
        return host
    }

    @Test func theLiveHostAndItsManifestOnDiskAnnotateAlike() throws {
        let host = try exposingHost()
        defer { host.unload() }
        let live = try host.annotations()
        let onDisk = try JSONDecoder().decode(AppManifest.self, from: host.manifest().jsonData())
        let inspector = try makeHost()
        defer { inspector.unload() }
        #expect(try inspector.annotations(manifest: onDisk) == live)
        // An exposed class is named by its Lua name at any depth, in the
        // manifest and in the annotations.
        let client = try #require(onDisk.type(named: "Client"))
        #expect(client.properties.first { $0.name == "peer" }?.type == "Optional<Client>")
        #expect(client.properties.first { $0.name == "peers" }?.type == "Array<Client>")
        #expect(live.contains("---@field peer Client? (read-only)"))
        #expect(live.contains("---@field peers Client[] (read-only)"))
        #expect(live.contains("---@field scores table<string, number> (read-only)"))
        #expect(live.contains("---@overload fun(fields: { baseURL: any, retries?: any }): Client"))
        #expect(live.contains("---@return string\nfunction Client:fetch(path) end"))
        #expect(live.contains("---@param ... any\nfunction Client:close(...) end"))
        #expect(live.contains("---@param config table\n---@return DecodedClient\nfunction DecodedClient.new(config) end"))
        #expect(live.contains("---@class app.global\n---@field feedsURL string\n---@field mirror string\napp = {}"))
        try expectAnnotationsRun(live)
    }

    @Test func swiftSpellingsBecomeLuaTypes() {
        let known: Set<String> = ["Client"]
        let cases: [(String, String)] = [
            ("String", "string"), ("Int64", "integer"), ("UInt8", "integer"), ("Double", "number"), ("Bool", "boolean"),
            ("Optional<String>", "string?"), ("String?", "string?"), ("Array<Optional<Int>>", "integer?[]"),
            ("[String]", "string[]"), ("[String: [Int]]", "table<string, integer[]>"),
            ("Dictionary<String, Optional<Client>>", "table<string, Client?>"), ("Set<Client>", "Client[]"),
            ("Optional<Date>", "any"), ("Client", "Client"), ("Server", "any"), ("LuaValue", "any"),
            ("", "any"), ("Array<", "any"), ("Dictionary<String>", "any"), ("end", "any"),
            ("x\n---@class Evil", "any"),
            (String(repeating: "Optional<", count: 10_000) + "Int" + String(repeating: ">", count: 10_000), "any"),
        ]
        for (spelling, lua) in cases {
            #expect(LuaAnnotationType.luaType(spelling: spelling, typeNames: known) == lua, "\(spelling.prefix(40))")
        }
    }

    @Test func bmluaTypesWithTheFeedReadersManifestAnnotatesItsTypesAndGlobals() throws {
        let result = try bmlua(["types", "--manifest", shippedFeedReaderManifest.path])
        #expect(result.status == 0, "\(result.stderr)")
        let manifest = try AppManifest.read(from: shippedFeedReaderManifest.path)
        #expect(!manifest.types.isEmpty)
        for type in manifest.types {
            #expect(result.stdout.contains("\n\(type.name) = {}\n"), "\(type.name)")
            for property in type.properties {
                #expect(result.stdout.contains("---@field \(property.name) "), "\(type.name).\(property.name)")
            }
            if type.constructor != nil { #expect(result.stdout.contains("function \(type.name).new(")) }
        }
        for global in manifest.globals {
            #expect(result.stdout.contains("\n\(global.name) = "), "\(global.name)")
        }
        // The same as the bm-only file, plus the app.
        let plain = try bmlua(["types"])
        #expect(plain.status == 0)
        #expect(result.stdout.count > plain.stdout.count)
        try expectAnnotationsRun(result.stdout)
    }

    @Test func aManifestThatCannotBeReadIsNamed() throws {
        let missing = try bmlua(["types", "--manifest", "/nonexistent/app.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--manifest: no such file: /nonexistent/app.json"))
        let file = ScratchPaths.url("bm-manifest", suffix: ".json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("{\"format\": 99}".utf8).write(to: file)
        let newer = try bmlua(["types", "--manifest", file.path])
        #expect(newer.status == 1)
        #expect(newer.stderr.contains("\(file.path): not a BloodMagic app manifest"))
        #expect(newer.stderr.contains("format 99"))
        #expect(newer.stdout.isEmpty)
    }
}
