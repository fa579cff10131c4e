// Lua host benchmarks (issue: foundation). Each Swift path is measured next
// to the same work done from C in the same run, and quoted as a ratio.
//
//   swift run -c release --package-path Benchmarks LuaHostBenchmarks

import BenchSupport
import BloodMagic
import CLuaBench

let iterations = 2_000_000

let state = try LuaState()

/// Lua→C and Lua→Swift: a Lua loop calling a function that increments its argument.
func luaLoop(calling name: String) throws -> Int {
    try state.withStack { (lua) throws(LuaError) -> Int in
        try lua.load("local f, n = \(name), ... local x = 0 for i = 1, n do x = f(x) end return x", name: "=bench")
        lua.push(iterations)
        try lua.call(arguments: 1, results: 1)
        defer { lua.pop() }
        return try lua.value(at: -1)
    }
}

state.withStack { lua in
    bmbench_push_c_increment(lua.pointer)
    lua.setRawGlobal("c_increment")
    lua.register("swift_increment") { lua in
        let n: Int = try lua.argument(1, of: "swift_increment")
        lua.push(n + 1)
        return 1
    }
}

var suite = BenchmarkSuite(name: "Lua host")

suite.measure("Lua → C function call", iterations: iterations, baseline: true) {
    blackHole(try! luaLoop(calling: "c_increment"))
}
suite.measure("Lua → Swift closure call", iterations: iterations) {
    blackHole(try! luaLoop(calling: "swift_increment"))
}

// Swift→Lua and C→Lua: calling `function(x) return x + 1 end` with pcall.
let pcallIterations = 1_000_000
let function = try state.run("return function(x) return x + 1 end").first!

suite.measure("C → Lua lua_pcall", iterations: pcallIterations, baseline: true) {
    state.withStack { lua in
        lua.push(function)
        blackHole(bmbench_c_pcall_loop(lua.pointer, Int64(pcallIterations)))
        lua.pop()
    }
}
suite.measure("Swift → Lua call (protected, traceback handler)", iterations: pcallIterations) {
    state.withStack { lua in
        var sum = 0
        for i in 0..<pcallIterations {
            lua.push(function)
            lua.push(i)
            try! lua.call(arguments: 1, results: 1)
            sum &+= (try? lua.value(at: -1, as: Int.self)) ?? 0
            lua.pop()
        }
        blackHole(sum)
    }
}
suite.measure("Swift → Lua call, entering the state each time", iterations: pcallIterations) {
    var sum = 0
    for i in 0..<pcallIterations {
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

suite.report()
