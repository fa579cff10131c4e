import Testing
@testable import BloodMagicLua

/// Swift functions that call Lua back through continuations
/// (`register(_:continuingFunction:)`): the Lua function they call may
/// yield, and the coroutine is resumed through them.
@Suite("Continuing Swift functions")
struct LuaContinuingFunctionTests {
    /// A state with `each(fn, ...)` (calls `fn(x)` for each further argument,
    /// in order, and returns the first result of each call), `fail_after(fn)`
    /// (calls `fn()`, then its continuation throws), `forever(fn, x)` (calls
    /// `fn(x)` again and again) and `fetch` (an async Swift function), and
    /// `script` run as `@test.lua`. Each continuation holds a `Tracked` of
    /// `counter` while it waits.
    private func makeState(_ script: String, counter: LiveCounter = LiveCounter(), limits: LuaLimits = .none)
        throws -> LuaState {
        let state = try LuaState(limits: limits)
        try state.withStack { (lua) throws(LuaError) in
            lua.register("each", continuingFunction: { lua in
                let count = lua.top
                // Each step passes on what it collected: O(count) steps.
                func step(_ index: Int32, _ collected: [LuaValue]) -> LuaCallStep {
                    guard index <= count else {
                        for value in collected { lua.push(value) }
                        return .results(Int32(collected.count))
                    }
                    let held = Tracked(counter, "each")
                    lua.pushCopy(of: 1)
                    lua.pushCopy(of: index)
                    return .call(arguments: 1, then: { lua, results in
                        _ = held
                        let first = results > 0 ? LuaValue(stack: lua, at: -results) : .nil
                        lua.pop(results)
                        return step(index + 1, collected + [first])
                    })
                }
                return step(2, [])
            })
            lua.register("fail_after", continuingFunction: { lua in
                lua.pushCopy(of: 1)
                return .call(arguments: 0, then: { _, _ in
                    throw TrackedError(payload: Tracked(counter, "boom"))
                })
            })
            lua.register("forever", continuingFunction: { lua in
                func again() -> LuaCallStep {
                    lua.pushCopy(of: 1)
                    lua.pushCopy(of: 2)
                    return .call(arguments: 1, then: { lua, results in
                        lua.pop(results)
                        return again()
                    })
                }
                return again()
            })
            lua.register("fetch", asyncFunction: { arguments in
                try await Task.sleep(for: .milliseconds(1))
                return [.string("fetched " + (arguments.first?.stringValue ?? "?"))]
            })
        }
        _ = try state.run(script, name: "@test.lua")
        return state
    }

    /// A round-robin scheduler written in Lua: each job's callback yields
    /// inside `each`, and is resumed with the scheduler's tick.
    @Test func aSchedulerResumesCallbacksThatYieldInsideASwiftFunction() throws {
        let state = try makeState("""
            function main()
              local function job(name)
                return coroutine.create(function()
                  return each(function(x)
                    assert(coroutine.isyieldable())
                    return coroutine.yield(name .. x)
                  end, 1, 2, 3)
                end)
              end
              local queue, out, tick = { job("a"), job("b") }, {}, 0
              while #queue > 0 do
                local co = table.remove(queue, 1)
                tick = tick + 1
                local ok, r1, r2, r3 = coroutine.resume(co, "t" .. tick)
                assert(ok, r1)
                if coroutine.status(co) == "dead" then
                  out[#out + 1] = r1 .. r2 .. r3
                else
                  out[#out + 1] = r1
                  queue[#queue + 1] = co
                end
              end
              return table.concat(out, ",")
            end
            """)
        let result = try state.run("return main()", name: "@run.lua")
        #expect(result == [.string("a1,b1,a2,b2,a3,b3,t3t5t7,t4t6t8")])
    }

    @Test func outsideACoroutineItRunsSynchronously() throws {
        let state = try makeState("")
        let result = try state.run("return each(function(x) return x * 2 end, 1, 2, 3)", name: "@run.lua")
        #expect(result == [.integer(2), .integer(4), .integer(6)])
        let none = try state.run("return select('#', each(print))", name: "@run.lua")
        #expect(none == [.integer(0)])
    }

    /// An error of the Lua function called goes through as it is: with its
    /// own position, caught by pcall, and with a traceback through `each`
    /// when nothing catches it; also after the coroutine waited.
    /// Under a C or Swift call that cannot be suspended, the refusal names
    /// that call, never the continuing function between it and the yield.
    @Test func aRefusedYieldNamesTheCallThatCannotWaitNotTheContinuingFunction() throws {
        let state = try makeState("""
            function under_gsub()
              return coroutine.wrap(function()
                return string.gsub("a", "a", function() return each(coroutine.yield, 1) end)
              end)()
            end
            """)
        let error = try #require(throws: LuaError.self) { try state.run("return under_gsub()", name: "@run.lua") }
        #expect(error.message.contains("coroutine.yield: attempt to yield across a C-call boundary (the C function "
            + "'gsub' called this Lua code"), "\(error.message)")
    }

    @Test func anErrorInTheLuaCallbackPropagatesWithATraceback() throws {
        let state = try makeState("""
            function after_wait()
              local co = coroutine.create(function()
                return each(function(x) coroutine.yield(); error("bad " .. x) end, 7)
              end)
              coroutine.resume(co)
              return coroutine.resume(co)
            end
            """)
        let caught = try state.run("return pcall(each, function(x) error('bad ' .. x) end, 7)", name: "@run.lua")
        #expect(caught == [.boolean(false), .string("run.lua:1: bad 7")])
        #expect(try state.run("return after_wait()", name: "@run.lua") == [.boolean(false), .string("test.lua:3: bad 7")])
        let error = try #require(throws: LuaError.self) {
            try state.run("each(function(x)\n error('bad ' .. x)\nend, 7)", name: "@cb.lua")
        }
        #expect(error.message == "cb.lua:2: bad 7")
        let traceback = try #require(error.traceback)
        #expect(traceback.contains("cb.lua:2"), "\(traceback)")
        #expect(traceback.contains("each"), "\(traceback)")
    }

    @Test func anErrorOfTheSwiftContinuationNamesTheFunction() throws {
        let counter = LiveCounter()
        let state = try makeState("""
            function in_coroutine()
              local co = coroutine.wrap(function()
                return fail_after(function() coroutine.yield("waiting") end)
              end)
              local first = co()
              local ok, message = pcall(co)
              return first, ok, tostring(message)
            end
            """, counter: counter)
        let direct = try #require(throws: LuaError.self) {
            try state.run("fail_after(function() end)", name: "@run.lua")
        }
        #expect(direct.message == "run.lua:1: fail_after: tracked failure: boom")
        #expect(direct.cause(as: TrackedError.self)?.payload.label == "boom")
        let resumed = try state.run("return in_coroutine()", name: "@run.lua")
        #expect(resumed == [.string("waiting"), .boolean(false),
                            .string("test.lua:3: fail_after: tracked failure: boom")])
    }

    /// The continuation waiting in a suspended coroutine is held by Lua:
    /// closing the coroutine, dropping it (once collected), or closing the
    /// state releases it.
    @Test func aDroppedSuspendedCoroutineReleasesTheContinuation() throws {
        let counter = LiveCounter()
        var state: LuaState? = try makeState("""
            function suspend()
              local co = coroutine.create(function() return each(coroutine.yield, 1) end)
              local ok, message = coroutine.resume(co)
              assert(ok and coroutine.status(co) == "suspended", message)
              return co
            end
            """, counter: counter)
        _ = try state?.run("local co = suspend(); coroutine.close(co)", name: "@run.lua")
        _ = try state?.run("collectgarbage(); collectgarbage()", name: "@run.lua")
        #expect(counter.live == 0)
        _ = try state?.run("local co = suspend(); co = nil; collectgarbage(); collectgarbage()", name: "@run.lua")
        #expect(counter.live == 0)
        _ = try state?.run("kept = suspend()", name: "@run.lua")
        #expect(counter.live == 1)
        state = nil
        #expect(counter.live == 0)
    }

    /// A continuation that asks for calls forever is charged for each: even
    /// calling a C function (no counted Lua instructions) it hits the limit.
    @Test func anEndlessContinuationLoopHitsTheInstructionLimit() throws {
        let state = try makeState("", limits: LuaLimits(maxInstructions: 200_000))
        let error = try #require(throws: LuaError.self) { try state.run("forever(tostring, 1)", name: "@run.lua") }
        #expect(error.kind == .instructionLimit, "\(error)")
        let luaCallee = try #require(throws: LuaError.self) {
            try state.run("forever(function() end, 1)", name: "@run.lua")
        }
        #expect(luaCallee.kind == .instructionLimit, "\(luaCallee)")
    }

    /// An async Swift function waits inside the callback of a continuing
    /// function, in a coroutine the host runs.
    @Test func anAsyncFunctionWaitsInsideTheCallback() async throws {
        let state = try makeState("""
            function main() return each(fetch, "a", "b") end
            """)
        let result = try await state.callAsync("main")
        #expect(result == [.string("fetched a"), .string("fetched b")])
    }
}
