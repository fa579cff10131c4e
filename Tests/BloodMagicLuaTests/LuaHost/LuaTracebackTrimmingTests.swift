import BloodMagicLua
import Testing

/// Tracebacks keep the frames that help a script's author and lose the rest.
@Suite("Traceback trimming")
struct LuaTracebackTrimmingTests {
    @Test func aTracebackOfBareCFramesIsDropped() throws {
        let dir = try scratchDirectory(["empty.lua": "-- registers nothing"])
        let result = try bmlua(["resolve", "Nope", "--scripts", dir.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no initializer for Nope"))
        #expect(!result.stderr.contains("stack traceback"))
        #expect(!result.stderr.contains("[C]"))
    }

    @Test func scriptFramesAndTheCFramesBesideThemStay() throws {
        let result = try bmlua(["-e", "local t = setmetatable({}, {__index = function() error('boom') end}) return t.x"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("stack traceback:"))
        #expect(result.stderr.contains("[C]: in function 'error'"))
        #expect(result.stderr.contains("(command line):1: in metamethod 'index'"))
    }

    @Test func anErrorRaisedFromSwiftCalledBySwiftHasNoTraceback() throws {
        let state = try LuaState()
        state.withStack { lua in
            lua.register("fail") { _ in throw LuaError(.runtime, "from Swift") }
        }
        let error = try #require(throws: LuaError.self) {
            try state.withStack { (lua) throws(LuaError) in
                lua.pushRawGlobal("fail")
                try lua.call(arguments: 0, results: 0)
            }
        }
        #expect(error.traceback == nil)
        let fromScript = try #require(throws: LuaError.self) { try state.run("local x = 1\nfail()", name: "@script.lua") }
        #expect(fromScript.traceback?.contains("script.lua:2") == true)
    }
}
