import Testing
@testable import BloodMagicLua

// Issue 30: Swift registrations that are async or isolated to the main
// actor, as scripts see them.

final class AsyncLuaPool: Sendable {
    let size = 4
}

@Suite struct BMAsyncRegistrationTests {
    @Test func entriesSayWhichSwiftRegistrationsAreAsyncOrIsolated() throws {
        let host = try makeHost()
        defer { host.unload() }
        host.registry.registerAsync(AsyncLuaPool.self) { AsyncLuaPool() }
        let result = try host.lua("""
            local e = bm.entries()[1]
            return e.async, e.isolation, e.scope
            """)
        #expect(result == [.boolean(true), .nil, .string("singleton")])
    }

    /// A script's read is synchronous: before the value is made it fails
    /// and says why; once made (`prepare()`), it reads it.
    @Test func aScriptReadsAnAsyncSingletonOnceItIsMade() async throws {
        let host = try makeHost()
        defer { host.unload() }
        host.registry.registerAsync(AsyncLuaPool.self) { AsyncLuaPool() }
        let failure = try #require(throws: LuaError.self) { try host.lua("\nreturn bm.resolve('AsyncLuaPool')", file: "use.lua") }
        #expect(failure.message.contains("AsyncLuaPool is registered with an async initializer at "), "\(failure.message)")
        #expect(failure.message.contains("use.lua:2"), "\(failure.message)")
        try await host.registry.prepare()
        #expect(try host.lua("return bm.resolve('AsyncLuaPool') ~= nil") == [.boolean(true)])
    }
}
