import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, scopes from Lua: `bm.reset_scope("session")` resets a custom
// scope as `Registry.reset(scope:)` does; its name is checked.

@Suite("bm.reset_scope", .serialized)
struct BMResetScopeTests {
    @Test func aScriptResetsACustomScope() throws {
        let host = try makeHost()
        defer { host.unload() }
        host.registry.declareScope(.custom("session"))
        host.registry.register(String.self, scope: .custom("session")) { _ in "swift" }
        let result = try host.lua("""
            made = 0
            bm.initializer { type = "Cart", scope = "session", init = function() made = made + 1; return { n = made } end }
            local before = bm.resolve("Cart").n + bm.resolve("Cart").n
            local count = bm.reset_scope("session")
            return before, count, bm.resolve("Cart").n, bm.resolve("Cart").n, made
            """)
        // Both registrations of the scope, the script's and Swift's.
        #expect(result == [.integer(2), .integer(2), .integer(2), .integer(2), .integer(2)])
        #expect(try host.lua(#"return bm.reset_scope("session")"#) == [.integer(2)])
    }

    @Test func anUnknownOrBuiltInScopeIsAnErrorListingTheDeclaredOnes() throws {
        let host = try makeHost()
        defer { host.unload() }
        #expect(host.failure(#"bm.reset_scope("session")"#, file: "logout.lua")
            == #"logout.lua:1: bm.reset_scope: argument #1 must be a custom scope the app declared (none declared), got "session""#)
        host.registry.declareScope(.custom("session"))
        host.registry.declareScope(.custom("checkout"))
        #expect(host.failure("local n = 1\nbm.reset_scope('sesion')", file: "logout.lua")
            == #"logout.lua:2: bm.reset_scope: argument #1 must be a custom scope the app declared ("checkout", "session"), got "sesion""#)
        for builtIn in ["singleton", "instance", "weak", "graph"] {
            #expect(host.failure("bm.reset_scope('\(builtIn)')", file: "logout.lua")
                == #"logout.lua:1: bm.reset_scope: argument #1 must be a custom scope the app declared ("checkout", "session"), got "\#(builtIn)""#)
        }
        let long = String(repeating: "x", count: 5000)
        #expect(host.failure("bm.reset_scope('\(long)')", file: "logout.lua")?.hasSuffix("got a name of 5000 bytes") == true)
        #expect(host.failure("bm.reset_scope(3)", file: "logout.lua")
            == "logout.lua:1: bm.reset_scope: argument #1 must be a scope name (a string), got number")
        #expect(host.failure("bm.reset_scope()", file: "logout.lua")
            == "logout.lua:1: bm.reset_scope: argument #1 must be a scope name (a string), got nil")
    }

    /// A reset is linear in the registrations; a script pays for them.
    @Test func aResetIsChargedToTheScript() throws {
        let host = try makeHost(limits: LuaLimits(maxInstructions: 1_000_000))
        defer { host.unload() }
        host.registry.declareScope(.custom("session"))
        for index in 0..<2000 { host.registry.registerInitializer(type: SpellTypeKey(name: "T\(index)"), source: "s:1") { _ in 0 } }
        // A thousand resets: a few thousand Lua instructions, two million registrations looked at.
        #expect(host.failure("for _ = 1, 1000 do bm.reset_scope('session') end")?.contains("instruction limit exceeded") == true)
        #expect(throws: Never.self) { try host.lua("for _ = 1, 10 do bm.reset_scope('session') end") }
    }

    @Test func theAnnotationsAndTheCheckerKnowIt() throws {
        let host = try makeHost()
        defer { host.unload() }
        #expect(try host.annotations().contains("function bm.reset_scope(name)"))
        #expect(try host.annotations().contains("---@param name string"))
        host.registry.declareScope(.custom("session"))
        host.registry.declareScope(.custom("checkout"))
        let annotations = try host.annotations()
        #expect(annotations.contains(#"---@param name "checkout"|"session""#), "\(annotations)")
        try expectAnnotationsRun(annotations)
    }
}

@Suite("bmlua check and bm.reset_scope")
struct ScriptCheckerResetScopeTests {
    func check(_ files: [String: String], scopes: [String]) throws -> [String] {
        let dir = try makeScripts(files)
        let host = try makeHost()
        defer { host.unload() }
        for scope in scopes { host.registry.declareScope(.custom(scope)) }
        let checker = ScriptChecker(manifest: host.manifest())
        return try checker.check(directory: dir, limits: LuaLimits(maxMemory: 64 << 20, maxInstructions: 2_000_000))
            .map { $0.description.replacingOccurrences(of: dir, with: "$") }
    }

    /// A scope the manifest declares is clean; another is an error at its line.
    @Test func checkKnowsTheDeclaredScopes() throws {
        let clean = try check(["logout.lua": "bm.reset_scope('session')\n"], scopes: ["session"])
        #expect(!clean.contains { $0.contains("reset_scope") }, "\(clean)")
        let problems = try check(["logout.lua": "local n = 0\nbm.reset_scope('sesion')\n"], scopes: ["session"])
        #expect(problems.contains {
            $0.hasPrefix("$/logout.lua:2: error:")
                && $0.contains(#"bm.reset_scope: argument #1 must be a custom scope the app declared ("session"), got "sesion""#)
        }, "\(problems)")
    }
}

@Suite("bm.reset_scope from inside a resolution", .serialized)
struct BMResetScopeReentryTests {
    /// An initializer of the scope that resets it while its value is being
    /// made: no deadlock; the value made goes to the reader, and the next
    /// resolution makes another.
    @Test func anInitializerMayResetItsOwnScope() throws {
        let host = try makeHost()
        defer { host.unload() }
        host.registry.declareScope(.custom("session"))
        let result = try host.lua("""
            made = 0
            bm.initializer { type = "Cart", scope = "session", init = function()
              made = made + 1
              local reset = bm.reset_scope("session")
              return { n = made, reset = reset }
            end }
            local first = bm.resolve("Cart")
            local second = bm.resolve("Cart")
            return first.n, first.reset, second.n
            """)
        #expect(result == [.integer(1), .integer(1), .integer(2)])
    }
}
