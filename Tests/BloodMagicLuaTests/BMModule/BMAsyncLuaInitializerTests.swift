import Foundation
import Synchronization
import Testing
@testable import BloodMagicLua

// Issue 30, "A Lua initializer that serves an async registration can await
// async Swift functions": `bm.singleton { ..., async = true, init = ... }`.

/// A Swift container whose property a script's async initializer serves.
private final class AsyncLuaStore {
    @Injectable var connection: String

    init(_ registry: Registry) {
        _connection = Injectable(registry: registry)
    }
}

/// Counts the calls of the async Swift function `db_connect`.
private final class Connects: Sendable {
    let count = Atomic<Int>(0)
}

/// A host whose scripts can call `db_connect(url)`: it sleeps 10 ms and
/// returns "conn:" .. url.
private func hostWithConnect(limits: LuaLimits = .none, sleep: Duration = .milliseconds(10)) throws -> (ScriptHost, Connects) {
    let host = try makeHost(limits: limits)
    let connects = Connects()
    host.register("db_connect", asyncFunction: { arguments in
        connects.count.add(1, ordering: .relaxed)
        try await Task.sleep(for: sleep)
        guard case .string(let url) = arguments.first else { return [.nil] }
        return [.string("conn:" + url)]
    })
    return (host, connects)
}

private let connectingSingleton = """
    made = 0
    bm.singleton { type = "String", async = true, init = function()
      made = made + 1
      local conn = db_connect("db://main")
      return conn .. "#" .. made
    end }
    """

@Suite struct BMAsyncLuaInitializerTests {
    @Test func aLuaAsyncInitializerAwaitsASwiftAsyncFunction() async throws {
        let (host, connects) = try hostWithConnect()
        defer { host.unload() }
        try host.lua(connectingSingleton)
        #expect(try await host.registry.resolve(String.self) == "conn:db://main#1")
        #expect(try await AsyncLuaStore(host.registry).$connection.asyncValue() == "conn:db://main#1")
        #expect(connects.count.load(ordering: .relaxed) == 1)
    }

    @Test func eightTasksGetOneValueMadeOnce() async throws {
        let (host, connects) = try hostWithConnect()
        defer { host.unload() }
        try host.lua(connectingSingleton)
        let registry = host.registry
        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await registry.resolve(String.self) } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(values == Array(repeating: "conn:db://main#1", count: 8))
        #expect(connects.count.load(ordering: .relaxed) == 1)
        #expect(try host.lua("return made") == [.integer(1)])
    }

    @Test func anErrorInsideTheLuaFunctionComesBackWithItsPosition() async throws {
        let (host, _) = try hostWithConnect()
        defer { host.unload() }
        try host.lua("""
            bm.singleton { type = "String", async = true, init = function()
              local conn = db_connect("db://main")
              error("cannot use " .. conn)
            end }
            """, file: "db.lua")
        let failure = await #expect(throws: LuaError.self) { try await host.registry.resolve(String.self) }
        #expect(failure?.message.contains("db.lua:3: cannot use conn:db://main") == true, "\(String(describing: failure))")
        #expect(failure?.traceback?.contains("db.lua:3") == true, "\(String(describing: failure?.traceback))")
        // Nothing was kept: a later ask tries again.
        #expect(host.registry.entries.first?.isAsync == true)
    }

    @Test func theTimeLimitFiresWhileItWaits() async throws {
        let (host, _) = try hostWithConnect(limits: LuaLimits(maxTime: .milliseconds(100)), sleep: .seconds(60))
        defer { host.unload() }
        try host.lua(connectingSingleton)
        let failure = await #expect(throws: LuaError.self) { try await host.registry.resolve(String.self) }
        // Failed when the limit ran out during the wait, not once the task
        // ended (no bound on the elapsed time: a loaded machine may run the
        // timer late, never as late as the task's end).
        #expect(failure?.kind == .timeLimit, "\(String(describing: failure))")
        #expect(failure?.message.contains("db_connect: time limit exceeded (0.1 s) while waiting for the async Swift function") == true,
                "\(String(describing: failure))")
    }

    @Test func aSynchronousReadBeforeItIsMadeFailsThenWorksAfterPrepare() async throws {
        let (host, _) = try hostWithConnect()
        defer { host.unload() }
        try host.lua(connectingSingleton)
        let failure = try #require(throws: LuaError.self) { try host.lua("\nreturn bm.resolve('String')", file: "use.lua") }
        #expect(failure.message.contains("String is registered with an async initializer at test.lua:2"), "\(failure.message)")
        #expect(failure.message.contains("use.lua:2"), "\(failure.message)")
        try await host.registry.prepare()
        #expect(try host.lua("return bm.resolve('String')") == [.string("conn:db://main#1")])
        #expect(AsyncLuaStore(host.registry).connection == "conn:db://main#1")
    }

    /// An async initializer that reads another synchronously before it is
    /// made is tried again by `prepare()` once the other is made, as a
    /// Swift one is.
    @Test func prepareMakesThemInDependencyOrder() async throws {
        let (host, _) = try hostWithConnect()
        defer { host.unload() }
        try host.lua("""
            bm.singleton { type = "String", async = true, init = function()
              return "client of " .. bm.resolve("Settings")
            end }
            bm.singleton { type = "Settings", async = true, init = function() return db_connect("settings") end }
            """)
        try await host.registry.prepare()
        #expect(try host.lua("return bm.resolve('String')") == [.string("client of conn:settings")])
    }

    @Test func entriesAndExplainSayItIsAsync() throws {
        let (host, _) = try hostWithConnect()
        defer { host.unload() }
        try host.lua(connectingSingleton)
        #expect(try host.lua("local e = bm.entries()[1] return e.async, e.scope") == [.boolean(true), .string("singleton")])
        let explained = host.registry.explain(SpellTypeKey(String.self), in: nil).description
        #expect(explained.contains("async"), "\(explained)")
    }

    @Test func theFieldIsCheckedAtItsLine() throws {
        let (host, _) = try hostWithConnect()
        defer { host.unload() }
        let wrongType = host.failure("""
            bm.singleton { type = "String",
              async = "yes", init = function() end }
            """, file: "bad.lua")
        #expect(wrongType?.contains("bad.lua:2:") == true && wrongType?.contains("async") == true, "\(String(describing: wrongType))")
        let weak = host.failure("""
            local n = 0
            bm.initializer { type = "String", async = true, scope = "weak", init = function() end }
            """, file: "bad.lua")
        #expect(weak?.contains("bad.lua:2: bm.initializer: an async initializer cannot have scope \"weak\"") == true, "\(String(describing: weak))")
        let arguments = host.failure("""
            local n = 0
            bm.initializer { type = "String", async = true, arguments = { "id" }, init = function(_, id) end }
            """, file: "bad.lua")
        #expect(arguments?.contains("bad.lua:2: bm.initializer: an async initializer takes no arguments") == true, "\(String(describing: arguments))")
    }

    @Test func reloadReplacesAndRemovesIt() async throws {
        let folder = try ScriptFolder(["10-db.lua": """
            bm.singleton { type = "String", async = true, init = function() return "v" .. db_connect("1") end }
            """])
        let host = try loadedHost(folder) { host in
            host.register("db_connect", asyncFunction: { arguments in
                try await Task.sleep(for: .milliseconds(10))
                return [arguments.first ?? .nil]
            })
        }
        defer { host.unload() }
        #expect(try await host.registry.resolve(String.self) == "v1")
        try folder.write("10-db.lua", """
            bm.singleton { type = "String", async = true, init = function() return "w" .. db_connect("2") end }
            """)
        try await host.reload()
        // The new registration makes its own value: the old one's is not reused.
        #expect(host.registry.entries.filter { $0.type?.name == "String" }.count == 1)
        #expect(try await host.registry.resolve(String.self) == "w2")
        try folder.write("10-db.lua", "-- nothing registered\n")
        try await host.reload()
        await #expect(throws: (any Error).self) { try await host.registry.resolve(String.self) }
    }
}

@Suite("bmlua check and async Lua initializers")
struct ScriptCheckerAsyncInitializerTests {
    /// The dry run does not call an async initializer as a synchronous one
    /// (which would report its wait for `db_connect` as an error).
    @Test func checkAcceptsAnAsyncInitializer() throws {
        let dir = try makeScripts(["db.lua": """
            bm.singleton { type = "String", async = true, init = function()
              return db_connect("db://main")
            end }
            """])
        let (host, _) = try hostWithConnect()
        defer { host.unload() }
        let checker = ScriptChecker(manifest: host.manifest())
        let problems = try checker.check(directory: dir, limits: LuaLimits(maxMemory: 64 << 20, maxInstructions: 2_000_000))
            .map { $0.description.replacingOccurrences(of: dir, with: "$") }
        #expect(!problems.contains { $0.contains("db.lua") }, "\(problems)")
    }
}
