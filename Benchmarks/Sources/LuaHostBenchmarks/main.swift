// Lua host benchmarks: each Swift path next to the same work done from C in
// the same run, quoted as a ratio.
//
//   swift run -c release --package-path Benchmarks LuaHostBenchmarks

import BenchSupport
import BloodMagicLua
import CLuaBench
import Dispatch
import Synchronization

let state = try LuaState()

state.withStack { lua in
    bmbench_push_c_increment(lua.pointer)
    lua.setRawGlobal("c_increment")
    lua.register("swift_increment") { lua in
        let n: Int = try lua.argument(1, of: "swift_increment")
        lua.push(n + 1)
        return 1
    }
}

/// A Lua loop calling `name` (a function that increments its argument) n times.
let loops = try state.run("""
    local c, s = c_increment, swift_increment
    return function(n) local x = 0 for i = 1, n do x = c(x) end return x end,
           function(n) local x = 0 for i = 1, n do x = s(x) end return x end
    """)

func runLoop(_ loop: LuaValue, _ n: Int) {
    state.withStack { lua in
        lua.push(loop)
        lua.push(n)
        try! lua.call(arguments: 1, results: 1)
        blackHole(try! lua.value(at: -1, as: Int.self))
        lua.pop()
    }
}

let suite = BenchmarkSuite("Lua host: calls across the C boundary")

suite.measure("Lua -> C function call", operations: 2_000_000) { n in runLoop(loops[0], n) }
suite.measure("Lua -> Swift closure call", operations: 2_000_000, baseline: "Lua -> C function call") { n in
    runLoop(loops[1], n)
}

let function = try state.run("return function(x) return x + 1 end")[0]

suite.measure("C -> Lua lua_pcall", operations: 1_000_000) { n in
    state.withStack { lua in
        lua.push(function)
        blackHole(bmbench_c_pcall_loop(lua.pointer, Int64(n)))
        lua.pop()
    }
}
suite.measure("Swift -> Lua call (protected, traceback handler)", operations: 1_000_000, baseline: "C -> Lua lua_pcall", goal: 1.9) { n in
    state.withStack { lua in
        var sum = 0
        for i in 0..<n {
            lua.push(function)
            lua.push(i)
            try! lua.call(arguments: 1, results: 1)
            sum &+= (try? lua.value(at: -1, as: Int.self)) ?? 0
            lua.pop()
        }
        blackHole(sum)
    }
}
suite.measure("Swift -> Lua call with its arguments, lua.call(function, i, results: 1)", operations: 1_000_000,
              baseline: "C -> Lua lua_pcall", goal: 1.9) { n in
    state.withStack { lua in
        var sum = 0
        for i in 0..<n {
            try! lua.call(function, i, results: 1)
            sum &+= (try? lua.value(at: -1, as: Int.self)) ?? 0
            lua.pop()
        }
        blackHole(sum)
    }
}
suite.measure("Swift -> Lua call inside lua.withMessageHandler (handler kept in one slot)", operations: 1_000_000,
              baseline: "C -> Lua lua_pcall", goal: 1.9) { n in
    state.withStack { lua in
        lua.withMessageHandler { lua in
            var sum = 0
            for i in 0..<n {
                lua.push(function)
                lua.push(i)
                try! lua.call(arguments: 1, results: 1)
                sum &+= (try? lua.value(at: -1, as: Int.self)) ?? 0
                lua.pop()
            }
            blackHole(sum)
        }
    }
}
suite.measure("Swift -> Lua call, entering the state each time", operations: 1_000_000, baseline: "C -> Lua lua_pcall") { n in
    var sum = 0
    for i in 0..<n {
        sum &+= state.withStack { lua in
            lua.push(function)
            lua.push(i)
            try! lua.call(arguments: 1, results: 1)
            defer { lua.pop() }
            return (try? lua.value(at: -1, as: Int.self)) ?? 0
        }
    }
    blackHole(sum)
}

suite.printReport()

// Coroutines that wait (issue 30): a Swift async function called from the
// coroutine the host runs (LuaState.callAsync), next to a synchronous Swift
// function called from the same coroutine, and next to the task hop alone
// (a Swift task started and awaited, no Lua). An async call is the
// synchronous call's work plus: starting the task, the coroutine's yield up
// to the host, the host awaiting the task, and one step of resume.
let waiting = BenchmarkSuite("Lua host: coroutines that wait")
let asyncState = try LuaState()
asyncState.withStack { lua in
    lua.register("swift_increment") { lua in
        let n: Int = try lua.argument(1, of: "swift_increment")
        lua.push(n + 1)
        return 1
    }
    lua.register("async_increment", asyncFunction: { arguments in
        guard case .integer(let n)? = arguments.first else { return [.nil] }
        return [.integer(n + 1)]
    })
}
_ = try asyncState.run("""
    function sync_loop(n) local x = 0 for i = 1, n do x = swift_increment(x) end return x end
    function async_loop(n) local x = 0 for i = 1, n do x = async_increment(x) end return x end
    """)

/// Runs `body` to its end from synchronous code (the benchmark harness's).
func blocking(_ body: @escaping @Sendable () async -> Int) -> Int {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Int>(0)
    Task {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0 }
}

waiting.measure("Lua coroutine -> Swift function call (in LuaState.callAsync)", operations: 200_000) { n in
    blackHole(blocking { (try? await asyncState.callAsync("sync_loop", [.integer(n)]))?.count ?? 0 })
}
waiting.measure("Swift task started and awaited (the hop alone)", operations: 20_000) { n in
    blackHole(blocking {
        var x = 0
        for _ in 0..<n {
            let current = x
            x = await Task { current + 1 }.value
        }
        return x
    })
}
waiting.measure("Lua coroutine -> Swift async function call (suspend, task, resume)", operations: 20_000,
                baseline: "Swift task started and awaited (the hop alone)") { n in
    blackHole(blocking { (try? await asyncState.callAsync("async_loop", [.integer(n)]))?.count ?? 0 })
}

waiting.printReport()

// MARK: - Issue 11: what the limits in C cost

/// The sandbox's string.find (our matcher, charging its steps) next to Lua's
/// own (an unsafe state opens the stock library); and the paths the limits
/// touch on every call or instruction: the Lua -> Swift call with budgets
/// armed (the trampoline's release check, the count hook) and a plain Lua
/// loop under each budget.
let limitsSuite = BenchmarkSuite("Lua host: the limits in C (issue 11)")

let stockState = try LuaState(libraries: .unsafe)
let limitedState = try LuaState(limits: LuaLimits(maxMemory: 256 << 20, maxInstructions: 1 << 50, maxTime: .seconds(3600)))
let instructionLimitedState = try LuaState(limits: LuaLimits(maxInstructions: 1 << 50))
let timeLimitedState = try LuaState(limits: LuaLimits(maxTime: .seconds(3600)))

/// A Lua function `f(n)` made by `code` in `state`, run with `n` by `measure`.
func loop(_ state: LuaState, _ code: String) throws -> (Int) -> Void {
    let function = try state.run(code)[0]
    return { n in
        state.withStack { lua in
            lua.push(function)
            lua.push(n)
            try! lua.call(arguments: 1, results: 1)
            blackHole(lua.type(at: -1))
            lua.pop()
        }
    }
}

let findLoop = """
    return function(n)
      local line, hits = "server_name = example.org", 0
      for i = 1, n do if line:find("^(%w+)%s*=%s*([%w%.]+)$") then hits = hits + 1 end end
      return hits
    end
    """
let plainFindLoop = """
    return function(n)
      local text, hits = "the quick brown fox jumps over the lazy dog", 0
      for i = 1, n do if text:find("lazy", 1, true) then hits = hits + 1 end end
      return hits
    end
    """
let gsubLoop = """
    return function(n)
      local line, out = "a-b-c-d-e-f", nil
      for i = 1, n do out = line:gsub("%-", "+") end
      return out
    end
    """
limitsSuite.measure("string.find, pattern, Lua's own", operations: 300_000, try loop(stockState, findLoop))
limitsSuite.measure("string.find, pattern, sandbox", operations: 300_000, baseline: "string.find, pattern, Lua's own", try loop(state, findLoop))
limitsSuite.measure("string.find, pattern, sandbox with all limits", operations: 300_000, baseline: "string.find, pattern, Lua's own", try loop(limitedState, findLoop))
limitsSuite.measure("string.find, plain, Lua's own", operations: 1_000_000, try loop(stockState, plainFindLoop))
limitsSuite.measure("string.find, plain, sandbox", operations: 1_000_000, baseline: "string.find, plain, Lua's own", try loop(state, plainFindLoop))
limitsSuite.measure("string.gsub, Lua's own", operations: 300_000, try loop(stockState, gsubLoop))
limitsSuite.measure("string.gsub, sandbox", operations: 300_000, baseline: "string.gsub, Lua's own", try loop(state, gsubLoop))

limitedState.withStack { lua in
    bmbench_push_c_increment(lua.pointer)
    lua.setRawGlobal("c_increment")
    lua.register("swift_increment") { lua in
        let n: Int = try lua.argument(1, of: "swift_increment")
        lua.push(n + 1)
        return 1
    }
}
let callLoop = """
    local c, s = c_increment, swift_increment
    return function(n) local x = 0 for i = 1, n do x = s(x) end return x end
    """
let cCallLoop = """
    local c, s = c_increment, swift_increment
    return function(n) local x = 0 for i = 1, n do x = c(x) end return x end
    """
limitsSuite.measure("Lua -> C call, all limits armed", operations: 2_000_000, try loop(limitedState, cCallLoop))
limitsSuite.measure("Lua -> Swift closure call, all limits armed", operations: 2_000_000, baseline: "Lua -> C call, all limits armed", try loop(limitedState, callLoop))

let spin = "return function(n) local x = 0 for i = 1, n do x = x + i % 7 end return x end"
let hookedState = try LuaState()
let hookedSpin = try loop(hookedState, spin)
limitsSuite.measure("Lua loop, no limits", operations: 5_000_000, try loop(state, spin))
limitsSuite.measure("Lua loop, a no-op C count hook every 1000", operations: 5_000_000, baseline: "Lua loop, no limits") { n in
    hookedState.withStack { bmbench_set_noop_count_hook($0.pointer, 1000) }
    hookedSpin(n)
}
let hookFloor = "Lua loop, a no-op C count hook every 1000"
limitsSuite.measure("Lua loop, instruction limit (count hook)", operations: 5_000_000, baseline: hookFloor, try loop(instructionLimitedState, spin))
limitsSuite.measure("Lua loop, time limit (count hook reads the clock)", operations: 5_000_000, baseline: hookFloor, try loop(timeLimitedState, spin))
limitsSuite.measure("Lua loop, all limits", operations: 5_000_000, baseline: hookFloor, try loop(limitedState, spin))

limitsSuite.printReport()

// Making states: a host that runs scripts in fresh states (a fuzzer, a test
// suite, an app that reloads its wiring) pays this for every one.
let making = BenchmarkSuite("Lua host: making states")

making.measure("bare lua_newstate + openlibs + close (C)", operations: 2_000) { n in
    var made = 0
    for _ in 0..<n { made += Int(bmbench_new_state_openlibs()) }
    blackHole(made)
}
making.measure("new LuaState (sandbox, limits) + close", operations: 2_000,
               baseline: "bare lua_newstate + openlibs + close (C)") { n in
    for _ in 0..<n {
        blackHole(try! LuaState(libraries: .safe, limits: LuaLimits(maxMemory: 16 << 20, maxInstructions: 200_000)))
    }
}
making.measure("new ScriptHost (sandbox, limits, own registry) + close", operations: 2_000,
               baseline: "bare lua_newstate + openlibs + close (C)") { n in
    for _ in 0..<n {
        let host = try! ScriptHost(options: .init(
            limits: LuaLimits(maxMemory: 16 << 20, maxInstructions: 200_000),
            registry: Registry(), preferences: InMemoryPreferenceStore()))
        blackHole(host)
    }
}
making.measure("new ScriptHost + run a one-line script + close", operations: 2_000,
               baseline: "bare lua_newstate + openlibs + close (C)") { n in
    for _ in 0..<n {
        let host = try! ScriptHost(options: .init(
            limits: LuaLimits(maxMemory: 16 << 20, maxInstructions: 200_000),
            registry: Registry(), preferences: InMemoryPreferenceStore()))
        blackHole(try! host.run("return 1 + 1"))
    }
}
making.printReport()
