import Foundation
import Testing
@testable import BloodMagicLua

private final class ModelClient: LuaExposable {
    var peer: ModelClient?
    var retries = 3
}

/// Issue 26: an exposed type has one model, ``LuaTypeDescription``. A
/// manifest's types are descriptions in Swift syntax (their JSON is the
/// manifest's format 1, as before), annotations are written from them in
/// LuaCATS syntax, and a hand-written description is the same type.
@Suite("one model of an exposed type: manifests and annotations")
struct LuaTypeDescriptionModelTests {
    /// `Client` as a manifest describes it: exposed in a state, read back
    /// the way ``ScriptHost/manifest()`` reads every exposed type.
    private func describedClient() throws -> LuaTypeDescription {
        let state = try LuaState()
        let client = LuaExposedType(ModelClient.self, name: "Client")
            .constructor(arguments: ["baseURL", "retries?"]) { _ in ModelClient() }
            .property("peer", get: { $0.peer })
            .property("retries", \.retries)
            .method("fetch", arguments: ["path"]) { (_: ModelClient, path: String) in path.count }
            .method("close") { (_: ModelClient) in }
            .method("raw", pushing: { _, _ in 0 })
        state.expose(client)
        return try #require(state.withStack { $0.manifestExposedTypes }.first { $0.name == "Client" })
    }

    @Test func aManifestsTypesAreDescriptionsInSwiftSyntax() throws {
        let client = try describedClient()
        let manifest = AppManifest(types: [client])
        let _: AppManifest.ExposedType? = manifest.type(named: "Client")
        #expect(client.typeSyntax == .swift)
        #expect(client.swiftType?.hasSuffix("ModelClient") == true)
        #expect(client.properties.map(\.type) == ["Optional<Client>", "Int"])
        let methods = Dictionary(uniqueKeysWithValues: client.methods.map { ($0.name, $0) })
        #expect(methods["fetch"]?.parameters == [LuaParameterDescription(name: "path", type: "String")])
        #expect(methods["fetch"]?.returns == "Int")
        #expect(methods["close"]?.returns == nil)  // returns nothing
        #expect(methods["raw"]?.returns == "any")  // pushes its own results
        #expect(client.constructor?.acceptsNamedTable == true)

        // In LuaCATS syntax, as annotations write it.
        let lua = LuaTypeDescription(client, typeNames: ["Client"])
        #expect(lua.typeSyntax == .lua)
        #expect(lua.properties.map(\.type) == ["Client?", "integer"])
        #expect(lua.methods.first { $0.name == "fetch" }?.returns == "integer")
        #expect(LuaTypeDescription(lua, typeNames: []) == lua)

        // Annotations take either syntax and write the same.
        let host = try makeHost()
        defer { host.unload() }
        let api = try host.apiDescription()
        #expect(LuaAnnotations(api: api, types: [client]).render() == LuaAnnotations(api: api, types: [lua]).render())
        #expect(manifest.luaTypeDescriptions == [lua])
    }

    /// The JSON a manifest writes is format 1 as it was: `arguments`, a
    /// result `Void` or left out when not known, no `any`, no name for the
    /// constructor; read back it is the same description.
    @Test func aManifestsTypeWritesTheManifestFormat() throws {
        let client = try describedClient()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try #require(String(data: try encoder.encode(client), encoding: .utf8))
        #expect(json.contains(#""constructor":{"acceptsNamedTable":true,"arguments":[{"name":"baseURL","optional":false},{"name":"retries","optional":true}]}"#))
        #expect(json.contains(#"{"arguments":[],"name":"close","returns":"Void"}"#))
        #expect(json.contains(#"{"name":"raw"}"#))
        #expect(!json.contains("\"any\"") && !json.contains("typeSyntax") && !json.contains("parameters"))
        #expect(try JSONDecoder().decode(LuaTypeDescription.self, from: Data(json.utf8)) == client)
    }

    @Test func aDescriptionInLuaSyntaxRoundTripsAndReadsOlderKeys() throws {
        let converted = LuaTypeDescription(
            LuaTypeDescription(
                name: "Cache", swiftType: "Cache",
                methods: [LuaFunctionDescription(name: "size", arguments: [], returns: "Int")]),
            typeNames: [])
        #expect(converted.typeSyntax == .lua && converted.swiftType == "Cache")
        let data = try JSONEncoder().encode(converted)
        #expect(String(decoding: data, as: UTF8.self).contains("\"typeSyntax\":\"lua\""))
        #expect(try JSONDecoder().decode(LuaTypeDescription.self, from: data) == converted)
        let older = #"{ "name": "Cache", "methods": [{ "name": "get", "parameters": [{ "name": "key", "type": "string" }] }] }"#
        let read = try JSONDecoder().decode(LuaTypeDescription.self, from: Data(older.utf8))
        #expect(read.typeSyntax == .lua)
        #expect(read.methods.first?.parameters == [LuaParameterDescription(name: "key", type: "string")])
    }
}
