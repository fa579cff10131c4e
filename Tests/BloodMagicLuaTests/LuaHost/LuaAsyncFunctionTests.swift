@_spi(BloodMagicInternals) import BloodMagic
import Synchronization
import Testing
@testable import BloodMagicLua

/// Swift `async` functions called from Lua coroutines that the host runs
/// (`LuaState.callAsync`): results, errors, cancellation, where they may
/// not wait, and the limits across the suspensions.
@Suite("Async Swift functions")
struct LuaAsyncFunctionTests {
    /// A state with `fetch(x)` (answers "fetched x" after a short sleep,
    /// fails for "bad") and `each(f)` (a Swift function calling `f`), and
    /// `script` loaded as `@test.lua`.
    private func makeState(_ script: String, limits: LuaLimits = .none) throws -> LuaState {
        let state = try LuaState(limits: limits)
        try state.withStack { (lua) throws(LuaError) in
            lua.register("fetch", asyncFunction: { arguments in
                try await Task.sleep(for: .milliseconds(2))
                let argument = arguments.first?.stringValue ?? "?"
                if argument == "bad" { throw TrackedError(payload: Tracked(LiveCounter(), "no such page")) }
                return [.string("fetched " + argument)]
            })
            lua.register("each") { lua in
                lua.pushCopy(of: 1)
                try lua.call(arguments: 0, results: 0)
                return 0
            }
        }
        _ = try state.run(script, name: "@test.lua")
        return state
    }

    @Test func anAsyncFunctionSuspendsTheCoroutineAndResumesItWithTheResult() async throws {
        let state = try makeState("""
            function main(page)
              local a = fetch(page)
              local b = fetch(a)
              return a, b, coroutine.isyieldable()
            end
            """)
        let result = try await state.callAsync("main", [.string("home")])
        #expect(result == [.string("fetched home"), .string("fetched fetched home"), .boolean(true)])
    }

    /// A scheduler written in Lua: its coroutines (made with create and with
    /// wrap) wait for Swift, and never see the host's marker.
    @Test func coroutinesOfALuaSchedulerWaitThroughResumeAndWrap() async throws {
        let state = try makeState("""
            function main()
              local log = {}
              local a = coroutine.create(function()
                log[#log + 1] = "a1"; coroutine.yield(); log[#log + 1] = fetch("a"); return "a done"
              end)
              local b = coroutine.wrap(function()
                log[#log + 1] = "b1"; coroutine.yield("b paused"); log[#log + 1] = fetch("b"); return "b done"
              end)
              local r1 = { coroutine.resume(a) }
              local r2 = b()
              local r3 = { coroutine.resume(a) }
              local r4 = b()
              log[#log + 1] = tostring(r1[1]) .. "/" .. tostring(r2) .. "/" .. tostring(r3[2]) .. "/" .. tostring(r4)
              return table.concat(log, ",")
            end
            """)
        let result = try await state.callAsync("main")
        #expect(result == [.string("a1,b1,fetched a,fetched b,true/b paused/a done/b done")])
    }

    @Test func aSwiftErrorComesBackAsALuaErrorWithATraceback() async throws {
        let state = try makeState("""
            function caught()
              local ok, message = pcall(fetch, "bad")
              return ok, tostring(message)
            end
            function uncaught()
              local page = fetch("bad")
              return page
            end
            """)
        let result = try await state.callAsync("caught")
        #expect(result == [.boolean(false), .string("test.lua:2: tracked failure: no such page")])
        let error = try await #require(throws: LuaError.self) { try await state.callAsync("uncaught") }
        #expect(error.message == "test.lua:6: tracked failure: no such page")
        #expect(error.cause is TrackedError)
        #expect(error.traceback?.contains("test.lua:6: in function 'uncaught'") == true, "\(error.traceback ?? "nil")")
    }

    @Test func cancellingTheCallerCancelsTheTaskAndRaisesInTheScript() async throws {
        let started = Atomic<Bool>(false)
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            lua.register("slow", asyncFunction: { _ in
                started.store(true, ordering: .releasing)
                try await Task.sleep(for: .seconds(60))
                return []
            })
        }
        _ = try state.run("""
            function main()
              local ok, message = pcall(slow)
              return ok, tostring(message)
            end
            """, name: "@test.lua")
        let call = Task { try await state.callAsync("main") }
        while !started.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
        call.cancel()
        let result = try await call.value
        #expect(result == [.boolean(false), .string("test.lua:2: slow: cancelled")])
    }

    @Test func outsideAHostCoroutineTheCallIsAClearError() async throws {
        let state = try makeState("""
            function under_swift() each(function() fetch("x") end) end
            """)
        let direct = try #require(throws: LuaError.self) { try state.run("return fetch('x')", name: "@main.lua") }
        #expect(direct.message.hasPrefix("main.lua:1: fetch: an async Swift function can only be called from a "
            + "coroutine the host runs asynchronously"), "\(direct.message)")
        let nested = try #require(throws: LuaError.self) {
            try state.run("return coroutine.wrap(function() return fetch('x') end)()", name: "@main.lua")
        }
        #expect(nested.message.contains("fetch: an async Swift function cannot wait here: this coroutine was "
            + "resumed by code that runs synchronously"), "\(nested.message)")
        let swift = try await #require(throws: LuaError.self) { try await state.callAsync("under_swift") }
        #expect(swift.message.contains("fetch: cannot wait here: this Lua code was called by the Swift function "
            + "'each'"), "\(swift.message)")
    }

    /// While the host's coroutine waits, other code runs in the state; a
    /// script that got hold of the coroutine cannot resume or close it.
    @Test func aScriptCannotResumeTheHostsCoroutine() async throws {
        let waiting = Atomic<Bool>(false)
        let release = Atomic<Bool>(false)
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            lua.register("gate", asyncFunction: { _ in
                waiting.store(true, ordering: .releasing)
                while !release.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
                return [.string("opened")]
            })
        }
        _ = try state.run("function main() parked = coroutine.running() return gate() end", name: "@test.lua")
        let call = Task { try await state.callAsync("main") }
        while !waiting.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
        let theft = try state.run("return coroutine.resume(parked)", name: "@thief.lua")
        let closing = try #require(throws: LuaError.self) { try state.run("coroutine.close(parked)", name: "@thief.lua") }
        release.store(true, ordering: .releasing)
        #expect(theft == [.boolean(false), .string("cannot resume a coroutine the host runs")])
        #expect(closing.message == "thief.lua:1: cannot close a coroutine the host runs")
        #expect(try await call.value == [.string("opened")])
    }

    /// A plain yield at the top of the host's coroutine pauses it; the
    /// host resumes it with nothing. Without the coroutine library the
    /// host's coroutine still waits for Swift.
    @Test func aPlainYieldPausesAndNoCoroutineLibraryIsNeeded() async throws {
        let paused = try makeState("function main() local got = coroutine.yield('x') return got, fetch('y') end")
        #expect(try await paused.callAsync("main") == [.nil, .string("fetched y")])
        let bare = try LuaState(libraries: [.base])
        try bare.withStack { (lua) throws(LuaError) in
            lua.register("twice", asyncFunction: { arguments in [.integer((arguments.first?.intValue ?? 0) * 2)] })
        }
        _ = try bare.run("function main(n) return twice(twice(n)) end")
        #expect(try await bare.callAsync("main", [.integer(5)]) == [.integer(20)])
    }

    @Test func theInstructionBudgetHoldsAcrossSuspensions() async throws {
        let state = try makeState("""
            function spend() for i = 1, 80000 do end end
            function main() spend(); fetch("x"); spend(); fetch("y"); spend() end
            function once() spend(); return "within" end
            """, limits: LuaLimits(maxInstructions: 200_000))
        // Each step alone is within the budget; the three are not.
        #expect(try await state.callAsync("once") == [.string("within")])
        let error = try await #require(throws: LuaError.self) { try await state.callAsync("main") }
        #expect(error.kind == .instructionLimit, "\(error)")
    }

    @Test func theTimeLimitCountsTheWait() async throws {
        let state = try LuaState(limits: LuaLimits(maxTime: .milliseconds(100)))
        try state.withStack { (lua) throws(LuaError) in
            lua.register("nap", asyncFunction: { _ in
                try await Task.sleep(for: .milliseconds(300))
                return []
            })
        }
        _ = try state.run("function main() nap(); for i = 1, 100000 do end return 'late' end", name: "@test.lua")
        let error = try await #require(throws: LuaError.self) { try await state.callAsync("main") }
        #expect(error.kind == .timeLimit, "\(error)")
    }

    @Test func aSuspendedCoroutineIsReleasedWithItsState() throws {
        let counter = LiveCounter()
        do {
            let state = try LuaState()
            let held = Tracked(counter, "held")
            try state.withStack { (lua) throws(LuaError) in
                lua.register("hold") { _ in
                    _ = held
                    return 0
                }
            }
            _ = try state.run("""
                local co = coroutine.create(function(f) coroutine.yield() end)
                coroutine.resume(co, hold)
                hold = nil
                parked = co
                """, name: "@test.lua")
        }
        #expect(counter.live == 0)
    }
}

/// The limits against async Swift functions (issue 30): a time limit that
/// runs out during the wait cancels the task and fails the coroutine then,
/// and the results a task hands back are charged before they are pushed.
@Suite struct LuaAsyncFunctionLimitTests {
    /// Whether a task saw its cancellation.
    final class Flag: Sendable {
        private let value = Lock(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    @Test func aTimeLimitThatRunsOutDuringTheWaitCancelsTheTask() async throws {
        let state = try LuaState(limits: LuaLimits(maxTime: .milliseconds(100)))
        let cancelled = Flag()
        try state.withStack { (lua) throws(LuaError) in
            lua.register("nap", asyncFunction: { _ in
                do {
                    try await Task.sleep(for: .seconds(60))
                } catch {
                    cancelled.set()
                    throw error
                }
                return []
            })
        }
        _ = try state.run("function main() nap() return 'late' end", name: "@test.lua")
        let error = try await #require(throws: LuaError.self) { try await state.callAsync("main") }
        // Failed when the limit ran out, not once the task ended: the task
        // was cancelled (no bound on the elapsed time: a loaded machine may
        // run the timer late, never as late as the task's end).
        #expect(error.kind == .timeLimit, "\(error)")
        #expect(error.message.contains("nap: time limit exceeded (0.1 s) while waiting for the async Swift function"),
                "\(error.message)")
        for _ in 0..<200 where !cancelled.isSet { try await Task.sleep(for: .milliseconds(10)) }
        #expect(cancelled.isSet)
    }

    @Test func resultsThatDoNotFitTheMemoryLimitAreRefusedBeforeTheyArePushed() async throws {
        let state = try LuaState(limits: LuaLimits(maxMemory: 4 << 20))
        try state.withStack { (lua) throws(LuaError) in
            lua.register("download", asyncFunction: { _ in [.string(String(repeating: "x", count: 8 << 20))] })
        }
        _ = try state.run("function main() local page = download() return #page end", name: "@test.lua")
        let error = try await #require(throws: LuaError.self) { try await state.callAsync("main") }
        #expect(error.kind == .memoryLimit, "\(error)")
        #expect(error.message.contains("download: memory limit exceeded"), "\(error.message)")
        #expect(state.withStack { $0.memoryInUse } < 4 << 20)
    }
}
