// Lua -> Swift call and property costs of exposed types, against baselines
// measured in the same run: a Lua -> C function call (`math.abs`) and a plain
// Lua table field read. Each case is a Lua loop of `iterations` steps; the
// best of `rounds` runs is kept. Figures are ns per loop step, loop included;
// the "net" figures subtract an empty loop.
//
//   swift run -c release LuaBenchmarks            all cases
//   swift run -c release LuaBenchmarks 'o.value'  only cases whose body contains the text
//   BENCH_ITERATIONS=100000 BENCH_ROUNDS=1         environment overrides
//
// On a shared machine wall-clock figures move with the load; for stable
// ratios count instructions: run one case under
// `valgrind --tool=callgrind` at two iteration counts and divide the
// difference by the difference in iterations.

import BenchCallgrind
import BloodMagicLua
import CLuaBench
import Foundation

/// The exposed object under test.
final class Meter: LuaExposable {
    var value = 7
    let fixed = 7
    func magnitude(_ x: Int) -> Int { x < 0 ? -x : x }
}

/// An exposed type with methods only: its `__index` is a plain table.
final class Calculator: LuaExposable {
    func magnitude(_ x: Int) -> Int { x < 0 ? -x : x }
}

let iterations = Int(ProcessInfo.processInfo.environment["BENCH_ITERATIONS"] ?? "") ?? 2_000_000
let rounds = Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 15

func nanoseconds(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let elapsed = try clock.measure(body)
    return Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
}

let state = try LuaState()
state.expose(
    LuaExposedType(Meter.self)
        .property("value", \.value)
        .property("fixed", \.fixed)
        .property("fastValue", get: { $0.value })
        .method("abs", arguments: ["x"]) { meter, args in meter.magnitude(try args.get(1)) }
        .method("absAny") { meter, args in meter.magnitude(try args.get(1)) }
        .method("absTyped", arguments: ["x"]) { (meter, x: Int) in meter.magnitude(x) })
state.expose(
    LuaExposedType(Calculator.self)
        .method("abs", arguments: ["x"]) { calculator, args in calculator.magnitude(try args.get(1)) }
        .method("absTyped", arguments: ["x"]) { (calculator, x: Int) in calculator.magnitude(x) })
let meter = Meter()
try state.withStack { (lua) throws(LuaError) in
    lua.push(meter)
    lua.setRawGlobal("meter")
    lua.push(Calculator())
    lua.setRawGlobal("calculator")
    bmbench_push_c_object(lua.pointer)
    lua.setRawGlobal("cObject")
    bmbench_push_checked_c_object(lua.pointer)
    lua.setRawGlobal("checkedCObject")
    lua.register("swiftAbs") { lua in
        let x: Int = try lua.argument(1, of: "swiftAbs")
        lua.push(x < 0 ? -x : x)
        return 1
    }
}

/// Only the cases whose body contains this text (first argument), for profiling.
let only = CommandLine.arguments.dropFirst().first

/// A Lua loop of `iterations` steps, compiled once.
struct Case {
    let function: LuaReference
    var best = Double.infinity
}

var cases: [String: Case] = [:]
var order: [String] = []

/// Registers a case: `body` runs in a loop after `setup`.
@MainActor func add(_ key: String, _ setup: String, _ body: String) throws {
    if let only, !body.contains(only) { return }
    let function = try state.withStack { (lua) throws(LuaError) -> LuaReference in
        try lua.load(
            """
            return function(n)
              \(setup)
              for i = 1, n do \(body) end
            end
            """, name: "=bench")
        try lua.call(arguments: 0, results: 1)
        defer { lua.pop() }
        return lua.reference(at: -1)
    }
    cases[key] = Case(function: function)
    order.append(key)
}

try add("empty", "", "")
try add("cCall", "local f = math.abs", "local r = f(i)")
try add("cMethod", "local o = cObject", "local r = o:abs(i)")
try add("checkedCMethod", "local o = checkedCObject", "local r = o:abs(i)")
try add("method", "local o = meter", "local r = o:abs(i)")
try add("methodAnyArity", "local o = meter", "local r = o:absAny(i)")
try add("prefetched", "local o = meter local m = o.abs", "local r = m(o, i)")
try add("methodOnly", "local c = calculator", "local r = c:abs(i)")
try add("typedMethod", "local o = meter", "local r = o:absTyped(i)")
try add("typedMethodOnly", "local c = calculator", "local r = c:absTyped(i)")
try add("swiftFunction", "local g = swiftAbs", "local r = g(i)")
try add("field", "local t = { value = 7 }", "local v = t.value")
try add("property", "local o = meter", "local v = o.value")
try add("closureProperty", "local o = meter", "local v = o.fastValue")
try add("letProperty", "local o = meter", "local v = o.fixed")
// The floor of any value computed on read: a table whose `__index` is a C
// function from Lua's own library (rawequal), doing almost nothing.
try add("cIndex", "local p = setmetatable({}, { __index = rawequal })", "local v = p.value")

// Instruction counts (`scripts/bench-counts LuaBenchmarks KEY`): with
// BENCH_CALLGRIND and BENCH_ONLY=key, one warm-up run of that case, then
// one run with callgrind collecting, and nothing else.
if ProcessInfo.processInfo.environment["BENCH_CALLGRIND"] != nil {
    let key = ProcessInfo.processInfo.environment["BENCH_ONLY"] ?? ""
    guard let function = cases[key]?.function else {
        print("no case named '\(key)'; cases: \(order.joined(separator: ", "))")
        exit(1)
    }
    func run(_ n: Int) throws {
        try state.withStack { (lua) throws(LuaError) in
            lua.push(function)
            lua.push(n)
            try lua.call(arguments: 1, results: 0)
        }
    }
    try run(iterations / 10)
    bench_callgrind_toggle()
    try run(iterations)
    bench_callgrind_toggle()
    print("callgrind-case\t\(key)\t\(iterations)")
    exit(0)
}

// Rounds interleave the cases, so that load from other processes spreads
// over all of them; each keeps its best round.
for _ in 0..<rounds {
    for key in order {
        let function = cases[key]!.function
        let time = try nanoseconds {
            try state.withStack { (lua) throws(LuaError) in
                lua.push(function)
                lua.push(iterations)
                try lua.call(arguments: 1, results: 0)
            }
        }
        cases[key]!.best = min(cases[key]!.best, time / Double(iterations))
    }
}

@MainActor func result(_ key: String) -> Double { cases[key]?.best ?? .nan }
let empty = result("empty")
let cCall = result("cCall")
let cMethod = result("cMethod")
let checkedCMethod = result("checkedCMethod")
let typedMethod = result("typedMethod")
let typedMethodOnly = result("typedMethodOnly")
let method = result("method")
let methodAnyArity = result("methodAnyArity")
let prefetchedMethod = result("prefetched")
let methodOnlyType = result("methodOnly")
let swiftFunction = result("swiftFunction")
let field = result("field")
let property = result("property")
let closureProperty = result("closureProperty")
let letProperty = result("letProperty")
let cIndex = result("cIndex")

func row(_ name: String, _ value: Double, _ baseline: Double, goal: Double? = nil) {
    let ratio = value / baseline
    let net = (value - empty) / max(baseline - empty, 0.001)
    var line = name.padding(toLength: 44, withPad: " ", startingAt: 0)
    line += String(format: "%7.1f ns  %5.2fx  (net of loop %5.2fx)", value, ratio, net)
    if let goal { line += String(format: "  goal <= %.3gx: %@", goal, ratio <= goal ? "met" : "MISSED") }
    print(line)
}

print("iterations \(iterations), best of \(rounds) rounds; empty loop \(String(format: "%.2f", empty)) ns/step")
print("-- calls (baseline: Lua -> C math.abs)")
row("Lua -> C function (math.abs)", cCall, cCall)
row("Lua -> C method o:abs(i) on a userdata", cMethod, cCall)
row("same, checking its userdata (luaL_checkudata)", checkedCMethod, cCall)
row("exposed method obj:abs(i), arity checked", method, cCall)
row("typed method obj:absTyped(i): (obj, x: Int)", typedMethod, cCall)
row("exposed method obj:absAny(i), no arity", methodAnyArity, cCall)
row("same, method looked up once (no __index)", prefetchedMethod, cCall)
row("method of a type without properties", methodOnlyType, cCall)
row("registered Swift function (host closure)", swiftFunction, cCall)
print("-- issue 17's method goals (baseline: the C method on a userdata)")
row("exposed method, type without properties", methodOnlyType, cMethod, goal: 1.5)
row("typed method, type without properties", typedMethodOnly, cMethod, goal: 1.5)
row("exposed method, type with properties", method, cMethod, goal: 2)
row("typed method, type with properties", typedMethod, cMethod, goal: 2)
print("-- the same against a C method that checks its userdata (luaL_checkudata)")
row("typed method, type without properties", typedMethodOnly, checkedCMethod)
row("typed method, type with properties", typedMethod, checkedCMethod)
print("-- property reads (baseline: plain table field)")
row("plain table field t.value", field, field)
row("exposed property, key path (var)", property, field)
row("exposed property, key path (let)", letProperty, field)
row("exposed property, closure getter", closureProperty, field)
row("floor: any C __index function (rawequal)", cIndex, field)
print("-- issue 17's property goals (baseline: any C __index function)")
row("exposed property, key path (var)", property, cIndex, goal: 1.25)
row("exposed property, key path (let)", letProperty, cIndex, goal: 1.25)
row("exposed property, closure getter", closureProperty, cIndex, goal: 1.25)
