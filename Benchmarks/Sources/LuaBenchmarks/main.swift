// Lua -> Swift call and property costs of exposed types, against baselines
// measured in the same run: a Lua -> C function call (`math.abs`) and a plain
// Lua table field read. Each case is a Lua loop of `iterations` steps; the
// best of `rounds` runs is kept. Figures are ns per loop step, loop included;
// the "net" figures subtract an empty loop.

import BloodMagic
import Foundation

/// The exposed object under test.
final class Meter: LuaExposable {
    var value = 7
    func magnitude(_ x: Int) -> Int { x < 0 ? -x : x }
}

let iterations = 5_000_000
let rounds = 7

func nanoseconds(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let elapsed = try clock.measure(body)
    return Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
}

let state = try LuaState()
state.expose(
    LuaExposedType(Meter.self)
        .property("value", \.value)
        .property("fastValue", get: { $0.value })
        .method("abs", arguments: ["x"]) { meter, args in meter.magnitude(try args.get(1)) }
        .method("absAny") { meter, args in meter.magnitude(try args.get(1)) })
let meter = Meter()
try state.withStack { (lua) throws(LuaError) in
    lua.push(meter)
    lua.setRawGlobal("meter")
    lua.register("swiftAbs") { lua in
        let x: Int = try lua.argument(1, of: "swiftAbs")
        lua.push(x < 0 ? -x : x)
        return 1
    }
}

/// Only the cases whose body contains this text (first argument), for profiling.
let only = CommandLine.arguments.dropFirst().first

/// Compiles `body` inside a loop once, then returns the best ns per step.
func measure(_ setup: String, _ body: String) throws -> Double {
    if let only, !body.contains(only) { return .nan }
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
    var best = Double.infinity
    for _ in 0..<rounds {
        let time = try nanoseconds {
            try state.withStack { (lua) throws(LuaError) in
                lua.push(function)
                lua.push(iterations)
                try lua.call(arguments: 1, results: 0)
            }
        }
        best = min(best, time / Double(iterations))
    }
    return best
}

let empty = try measure("", "")
let cCall = try measure("local f = math.abs", "local r = f(i)")
let method = try measure("local o = meter", "local r = o:abs(i)")
let methodAnyArity = try measure("local o = meter", "local r = o:absAny(i)")
let swiftFunction = try measure("local g = swiftAbs", "local r = g(i)")
let field = try measure("local t = { value = 7 }", "local v = t.value")
let property = try measure("local o = meter", "local v = o.value")
let closureProperty = try measure("local o = meter", "local v = o.fastValue")

func row(_ name: String, _ value: Double, _ baseline: Double, goal: Double? = nil) {
    let ratio = value / baseline
    let net = (value - empty) / max(baseline - empty, 0.001)
    var line = name.padding(toLength: 44, withPad: " ", startingAt: 0)
    line += String(format: "%7.1f ns  %5.2fx  (net of loop %5.2fx)", value, ratio, net)
    if let goal { line += String(format: "  goal <= %.0fx: %@", goal, ratio <= goal ? "met" : "MISSED") }
    print(line)
}

print("iterations \(iterations), best of \(rounds) rounds; empty loop \(String(format: "%.2f", empty)) ns/step")
print("-- calls (baseline: Lua -> C math.abs)")
row("Lua -> C function (math.abs)", cCall, cCall)
row("exposed method obj:abs(i), arity checked", method, cCall, goal: 2)
row("exposed method obj:absAny(i), no arity", methodAnyArity, cCall, goal: 2)
row("registered Swift function (host closure)", swiftFunction, cCall)
print("-- property reads (baseline: plain table field)")
row("plain table field t.value", field, field)
row("exposed property, key path", property, field, goal: 3)
row("exposed property, closure getter", closureProperty, field, goal: 3)
