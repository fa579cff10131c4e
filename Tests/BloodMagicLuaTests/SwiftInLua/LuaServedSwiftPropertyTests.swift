import Foundation
import Synchronization
import Testing
@testable import BloodMagicLua
import TestSupport

// Swift types the scripts serve. Names are unique to this file's purpose.

final class FeedClient: LuaExposable {
    let baseURL: String
    init(baseURL: String) { self.baseURL = baseURL }
}

struct FeedConfig: Codable, Equatable {
    var title: String
    var limit: Int
    var tags: [String]
    var mirror: String?
}

final class FeedHeader: LuaExposable {
    var text = ""
}

/// The registry these tests serve from (the suite is serialized, and each
/// test unloads its host, which removes its registrations).
let servedRegistry = Registry()

final class FeedScreen {
    @Injectable(registry: servedRegistry) var client: FeedClient
    @Lazy(registry: servedRegistry) var config: FeedConfig
    @Injectable(registry: servedRegistry) var maybe: FeedHeader?
    @Partial(registry: servedRegistry) var header: FeedHeader
    @Preference(key: "screen.name", store: servedPreferences, registry: servedRegistry) var screenName: String?
}

let servedPreferences = InMemoryPreferenceStore()

/// A host with `FeedClient` and `FeedHeader` exposed, on a fresh registry,
/// running `script` as `wiring.lua`.
func makeServingHost(_ script: String) throws -> ScriptHost {
    let host = try ScriptHost(options: .init(registry: servedRegistry, preferences: servedPreferences))
    host.expose(LuaExposedType(FeedClient.self)
        .constructor(arguments: ["baseURL"]) { args in FeedClient(baseURL: try args.get(1)) }
        .property("baseURL", \.baseURL))
    host.expose(LuaExposedType(FeedHeader.self)
        .constructor(arguments: []) { _ in FeedHeader() }
        .property("text", \.text))
    try host.run(script, name: "@wiring.lua")
    return host
}

@Suite("Swift properties served by Lua", .serialized)
struct LuaServedSwiftPropertyTests {
    @Test func eachSpellIsServedFromLua() throws {
        let host = try makeServingHost("""
            senders = {}
            bm.singleton { type = "FeedClient", init = function(sender)
              senders[#senders + 1] = tostring(sender)
              return FeedClient.new("https://feeds.example") end }
            bm.initializer { type = "FeedConfig", container = "FeedScreen", init = function(sender)
              return { title = "Swift", limit = 3, tags = { "lang", "apple" } } end }
            bm.partial { type = "FeedHeader", init = function(sender) local h = FeedHeader.new() h.text = "header" return h end }
            bm.preference { container = "FeedScreen", property = "screenName", default = "main" }
            hooked = 0
            bm.hook { container = "FeedScreen", property = "client", fn = function(sender, value) hooked = hooked + 1 end }
            """)
        // Registrations outlive the host (issue 12): take them out of the shared registry.
        defer { host.unload() }
        let screen = FeedScreen()
        #expect(screen.client.baseURL == "https://feeds.example")
        #expect(screen.client === FeedScreen().client)  // singleton
        #expect(screen.config == FeedConfig(title: "Swift", limit: 3, tags: ["lang", "apple"], mirror: nil))
        #expect(screen.maybe == nil)
        #expect(screen.header.text == "header")
        #expect(screen.header === screen.header)
        #expect(screen.screenName == "main")
        screen.screenName = "news"
        #expect(servedPreferences.value(forKey: "screen.name") == .string("news"))
        screen.screenName = nil
        let observed = try host.run("return hooked, senders[1]")
        #expect(observed.first == .integer(2))  // once per injected object (two screens), not per read
        #expect(observed.last?.stringValue?.hasPrefix("FeedScreen: 0x") == true, "\(observed)")
    }

    @Test func identityRoundTrip() throws {
        let client = FeedClient(baseURL: "x")
        let host = try makeServingHost("")
        // Registrations outlive the host (issue 12): take them out of the shared registry.
        defer { host.unload() }
        let back = try host.state.withStack { (lua) throws -> FeedClient in
            lua.push(exposed: client)
            lua.setRawGlobal("c1")
            lua.push(exposed: client)
            lua.setRawGlobal("c2")
            try lua.load("return rawequal(c1, c2), c1", name: "=t")
            try lua.call(arguments: 0, results: 2)
            defer { lua.pop(2) }
            #expect(try lua.value(at: -2, as: Bool.self))
            return try lua.value(at: -1, as: FeedClient.self)
        }
        #expect(back === client)
    }

    /// An initializer that declares no parameter is called without the
    /// sender (none is made for it); one with `...` or a parameter gets it.
    @Test func theSenderIsPassedToInitializersThatCanSeeIt() throws {
        let host = try makeServingHost("""
            seen = {}
            bm.initializer { type = "FeedClient", init = function() seen.none = select('#') return FeedClient.new("none") end }
            bm.partial { type = "FeedHeader", init = function(...)
              seen.count, seen.vararg = select('#', ...), tostring((...))
              return FeedHeader.new() end }
            bm.initializer { type = "FeedConfig", init = function(sender)
              seen.named = tostring(sender)
              return { title = "t", limit = 1, tags = {} } end }
            """)
        // Registrations outlive the host (issue 12): take them out of the shared registry.
        defer { host.unload() }
        let screen = FeedScreen()
        #expect(screen.client.baseURL == "none")
        _ = screen.header
        #expect(screen.config.title == "t")
        let seen = try host.run("return seen.none, seen.count, seen.vararg, seen.named")
        #expect(seen.count == 4)
        #expect(seen[0] == .integer(0))
        #expect(seen[1] == .integer(1))
        #expect(seen[2].stringValue?.hasPrefix("FeedScreen: 0x") == true, "\(seen)")
        #expect(seen[3].stringValue?.hasPrefix("FeedScreen: 0x") == true, "\(seen)")
    }

    @Test func mismatchNamesTheScriptAndBothTypes() throws {
        let host = try makeServingHost("""
            bm.initializer { type = "FeedClient", init = function() return "not a client" end }
            bm.initializer { type = "FeedConfig", init = function() return { title = 1, limit = 2, tags = {} } end }
            """)
        // Registrations outlive the host (issue 12): take them out of the shared registry.
        defer { host.unload() }
        let screen = FeedScreen()
        // The same error as a Swift initializer's value of the wrong type.
        let clientError = try #require(throws: SpellError.self) { try screen.$client.value() }
        #expect(clientError == .wrongValueType(
            property: "client", container: "FeedScreen", expected: "FeedClient", actual: "a string", source: "wiring.lua:1"))
        #expect("\(clientError)" == "FeedScreen.client: the initializer registered at wiring.lua:1 returned a string, expected FeedClient")
        let configError = try #require(throws: SpellError.self) { try screen.$config.value() }
        #expect("\(configError)" == "FeedScreen.config: the initializer registered at wiring.lua:2 returned a table (title: expected string, got number), expected FeedConfig")
    }

    @Test func aFailingLuaHookOnASwiftPropertyIsLoggedNotKept() throws {
        let host = try makeServingHost("""
            bm.initializer { type = "FeedClient", init = function() return FeedClient.new("h") end }
            bm.hook { container = "FeedScreen", property = "client", fn = function() error("hook failed") end }
            """)
        // Registrations outlive the host (issue 12): take them out of the shared registry.
        defer { host.unload() }
        // The Swift getter cannot throw: the value is still injected, the
        // hook's error goes to the log, and nothing is left for Lua to trip on.
        #expect(FeedScreen().client.baseURL == "h")
        #expect(try host.run("return bm.resolve('FeedClient').baseURL") == [.string("h")])
    }

    @Test func eightThreadsResolveAtOnce() throws {
        let host = try makeServingHost("""
            made = 0
            bm.initializer { type = "FeedClient", init = function(sender) made = made + 1 return FeedClient.new("u" .. made) end }
            """)
        // Registrations outlive the host (issue 12): take them out of the shared registry.
        defer { host.unload() }
        let screens = UncheckedBox(value: (0..<64).map { _ in FeedScreen() })
        let failures = CallCounter()
        // Eight threads read every screen's client at once: each is made once.
        runOnThreads(8) { _ in
            for screen in screens.value {
                if (try? screen.$client.value()) == nil { failures.increment() }
            }
        }
        #expect(failures.value == 0)
        // Each screen got exactly one client, made once.
        #expect(try host.run("return made") == [.integer(64)])
        #expect(Set(screens.value.map { ObjectIdentifier($0.client) }).count == 64)
        // Every client is still held by its screen once Lua lets go of it
        // (a projection made while another thread stored the value used to
        // lose the storage's reference).
        _ = try host.run("collectgarbage() collectgarbage()")
        #expect(screens.value.allSatisfy { $0.client.baseURL.hasPrefix("u") })
    }
}

