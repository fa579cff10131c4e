import Testing
@testable import BloodMagicLua

/// `ScriptHost.register(_:asyncFunction:)` and `ScriptHost.callAsync`: a
/// host's async functions outlive a reload, as its other host setup does.
@Suite struct ScriptHostAsyncCallTests {
    @Test func anAsyncFunctionIsRegisteredAgainInTheReloadedState() async throws {
        let scripts = try makeScripts(["10-main.lua": "function main(x) return lookup(x) .. ' (v1)' end\n"])
        let host = try makeHost(scripts: scripts)
        defer { host.unload() }
        host.register("lookup", asyncFunction: { arguments in
            try await Task.sleep(for: .milliseconds(1))
            return [.string("found " + (arguments.first?.stringValue ?? "?"))]
        })
        try host.loadStartupScripts()
        #expect(try await host.callAsync("main", [.string("a")]) == [.string("found a (v1)")])
        let oldState = host.state
        _ = try await host.reload()
        #expect(host.state !== oldState)
        #expect(try await host.callAsync("main", [.string("b")]) == [.string("found b (v1)")])
        #expect(host.manifest().globals.contains { $0.name == "lookup" })
    }
}
