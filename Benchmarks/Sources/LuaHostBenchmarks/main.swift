// Lua host benchmarks: each Swift path next to the same work done from C in
// the same run, quoted as a ratio.
//
//   swift run -c release --package-path Benchmarks LuaHostBenchmarks

import BenchSupport
import BloodMagic
import CLuaBench

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
suite.measure("Swift -> Lua call (protected, traceback handler)", operations: 1_000_000, baseline: "C -> Lua lua_pcall") { n in
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
