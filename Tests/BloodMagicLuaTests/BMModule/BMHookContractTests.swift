import Testing
@_spi(BloodMagicInternals) import BloodMagic
@testable import BloodMagicLua

/// The two implementations of "run every hook after an injection, raise the
/// first error after the last" (the contract in BMModule+HookSteps.swift):
/// the prelude's `run_hooks` over `core.hook_steps`, which calls the
/// script's own hooks from Lua, and Swift's `core.run_hooks`, which runs the
/// hooks of other kinds and collects the errors of the Lua ones.
enum HookPath: String, CaseIterable, CustomTestStringConvertible {
    /// The prelude calls the hooks from Lua.
    case lua
    /// Swift runs them (`core.run_hooks`).
    case swift

    var testDescription: String { rawValue }

    /// A host whose hooks (as `hooks.lua`, with `note(text)` to say what
    /// ran) run by this path, and what they noted.
    func host(hooks: String, limits: LuaLimits = .none) throws -> (host: ScriptHost, ran: HookLog) {
        let ran = HookLog()
        let host = try makeHost(limits: limits)
        try host.state.withStack { (lua) throws(LuaError) in
            lua.register("note") { lua in
                let text: String = try lua.argument(1, of: "note")
                ran.notes.withLock { $0.append(text) }
                return 0
            }
        }
        if self == .swift { host.module.tracking.withLock { $0.scriptHooksRunInSwift = true } }
        try host.lua(hooks, file: "hooks.lua")
        return (host, ran)
    }
}

/// What the hooks of a ``HookPath`` test noted, in order.
final class HookLog: Sendable {
    let notes = Lock<[String]>([])
    var joined: String { notes.withLock { $0.joined(separator: ",") } }
}

@Suite struct BMHookContractTests {
    private static let read = """
        bm.initializer { type = "H", init = function() return "v" end }
        local C = bm.class("C", { h = bm.spell.injectable("H") })
        local ok, message = pcall(function() return C.new().h end)
        return ok, message
        """

    @Test(arguments: HookPath.allCases)
    func everyHookRunsInOrder(path: HookPath) throws {
        let (reader, ran) = try path.host(hooks: """
            bm.hook { property = "h", fn = function(_, v) note("1" .. v) end }
            bm.hook { container = "C", property = "h", fn = function(_, v) note("2" .. v) end }
            bm.hook { property = "h", fn = function(_, v) note("3" .. v) end }
            """)
        #expect(try reader.lua(Self.read, file: "read.lua") == [.boolean(true), .string("v")])
        #expect(ran.joined == "1v,2v,3v")
    }

    @Test(arguments: HookPath.allCases)
    func theFirstErrorIsRaisedAfterTheLastHookWithItsLine(path: HookPath) throws {
        let (reader, ran) = try path.host(hooks: """
            bm.hook { property = "h", fn = function() note("1") end }
            bm.hook { property = "h", fn = function() note("2"); error("second failed") end }
            bm.hook { property = "h", fn = function() note("3"); error("third failed") end }
            bm.hook { property = "h", fn = function() note("4") end }
            """)
        let result = try reader.lua(Self.read, file: "read.lua")
        #expect(result.first == .boolean(false))
        let message = result[1].stringValue ?? ""
        #expect(message.contains("hooks.lua:2: second failed"), "\(message)")
        #expect(!message.contains("third failed"), "\(message)")
        #expect(ran.joined == "1,2,3,4")
    }

    @Test(arguments: HookPath.allCases)
    func aHookThatRunsOutOfInstructionsRaisesTheLimit(path: HookPath) throws {
        let (reader, _) = try path.host(hooks: """
            bm.hook { property = "h", fn = function() note("1") end }
            bm.hook { property = "h", fn = function() while true do end end }
            """, limits: LuaLimits(maxInstructions: 1_000_000))
        let message = reader.failure(Self.read, file: "read.lua") ?? ""
        #expect(message.contains("instruction limit"), "\(message)")
    }
}
