import Foundation
import Testing
@testable import BloodMagicLua

// The README's "Wiring from Lua" example, run for real.

let readmeRegistry = Registry()

final class ReadmeRequestManager {
    let baseURL: String
    init(baseURL: String) { self.baseURL = baseURL }
}

final class ReadmeLoader {
    let name: String
    var pageSize = 10
    init(name: String) { self.name = name }
}

final class ReadmeUsersViewController {
    @Injectable(registry: readmeRegistry) var requestManager: ReadmeRequestManager
    @Injectable(registry: readmeRegistry) var loader: ReadmeLoader
}

@Suite("The README's wiring example")
struct ReadmeWiringTests {
    @Test func scriptsServeSwiftProperties() throws {
        let dir = try makeScripts(["10-network.lua": """
            bm.singleton { type = "ReadmeRequestManager", init = function()
              return ReadmeRequestManager.new { baseURL = "https://example.com" }
            end }
            bm.initializer { type = "ReadmeLoader", container = "ReadmeUsersViewController", init = function(sender)
              return ReadmeLoader.new("users")
            end }
            bm.hook { container = "ReadmeUsersViewController", property = "loader", fn = function(sender, loader)
              loader.pageSize = 50
            end }
            """])
        let host = try ScriptHost(options: .init(
            scriptsDirectory: dir, registry: readmeRegistry, preferences: InMemoryPreferenceStore()))
        host.expose(LuaExposedType(ReadmeRequestManager.self)
            .constructor(arguments: ["baseURL"]) { args in ReadmeRequestManager(baseURL: try args.get(1)) }
            .property("baseURL", \.baseURL))
        host.expose(LuaExposedType(ReadmeLoader.self)
            .constructor(arguments: ["name"]) { args in ReadmeLoader(name: try args.get(1)) }
            .property("pageSize", \.pageSize))
        try host.loadStartupScripts()
        let users = ReadmeUsersViewController()
        #expect(users.requestManager.baseURL == "https://example.com")
        #expect(users.requestManager === ReadmeUsersViewController().requestManager)
        #expect(users.loader.name == "users")
        #expect(users.loader.pageSize == 50)
    }
}
