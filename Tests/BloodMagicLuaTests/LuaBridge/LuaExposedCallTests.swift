import CLua
import Testing
@testable import BloodMagicLua

/// A class with methods only: its `__index` is the members table itself.
private final class Calculator: LuaExposable {
    var calls = 0
    func magnitude(_ x: Int) -> Int {
        calls += 1
        return x < 0 ? -x : x
    }
}

private struct Failure: Error, CustomStringConvertible {
    var description: String { "the calculator broke" }
}

private func calculatorType(state: LuaState) -> LuaExposedType<Calculator> {
    LuaExposedType(Calculator.self)
        .constructor { _ in Calculator() }
        .method("abs", arguments: ["x"]) { calculator, args in calculator.magnitude(try args.get(1)) }
        .method("fail") { _, _ -> Void in throw Failure() }
        .method("nested", arguments: ["code"]) { [unowned state] _, args in
            // Re-enters the state from inside a method call.
            try state.run(try args.get(1, as: String.self)).first?.intValue ?? -1
        }
}

@Suite("Exposed method calls")
struct LuaExposedCallTests {
    private func makeState() throws -> LuaState {
        let state = try LuaState()
        state.expose(calculatorType(state: state))
        return state
    }

    @Test func methodOnlyTypesBehaveTheSame() throws {
        let state = try makeState()
        #expect(try state.run("local c = Calculator.new() return c:abs(-4), c.unknown, c.abs == Calculator.abs")
            == [.integer(4), .nil, .boolean(true)])
        let error = try #require(throws: LuaError.self) { try state.run("local c = Calculator.new()\nc.x = 1", name: "@calc.lua") }
        #expect(error.message == "calc.lua:2: Calculator has no property 'x'")
        let wrongSelf = try #require(throws: LuaError.self) { try state.run("Calculator.abs({}, 1)", name: "@calc.lua") }
        #expect(wrongSelf.message == "calc.lua:1: Calculator.abs: expected a Calculator object as self, got table (call it as obj:abs(...))")
    }

    /// The C check of `self` compares the object's type tag: an object of
    /// another exposed type (same block layout) is refused by name.
    @Test func selfOfAnotherExposedTypeIsRefused() throws {
        final class Other: LuaExposable {
            var value = 3
        }
        let state = try makeState()
        state.expose(LuaExposedType(Other.self).constructor { _ in Other() }.property("value", \.value))
        let error = try #require(throws: LuaError.self) {
            try state.run("Calculator.abs(Other.new(), 1)", name: "@calc.lua")
        }
        #expect(error.message == "calc.lua:1: Calculator.abs: expected a Calculator object as self, got Other (call it as obj:abs(...))")
        let light = try #require(throws: LuaError.self) {
            try state.withStack { (lua) throws(LuaError) in
                lua.pushRawGlobal("Calculator")
                lua.push("abs")
                try lua.getTable(at: -2)
                lua_pushlightuserdata(lua.pointer, UnsafeMutableRawPointer(bitPattern: 16))
                lua.push(1)
                try lua.call(arguments: 2, results: 0)
            }
        }
        #expect(light.message.hasSuffix("Calculator.abs: expected a Calculator object as self, got userdata (call it as obj:abs(...))"))
        // A property read with another type's object as `self` is refused too.
        #expect(try state.run("return Other.new().value") == [.integer(3)])
    }

    /// Objects come back to Swift as themselves, whether their class is the
    /// exposed one (no dynamic cast) or a subclass of it.
    @Test func objectsComeBackWithTheirIdentity() throws {
        class Base: LuaExposable {}
        final class Derived: Base {}
        let state = try makeState()
        state.expose(LuaExposedType(Base.self))
        let base = Base()
        let derived = Derived()
        try state.withStack { (lua) throws(LuaError) in
            lua.push(exposed: base)
            lua.push(exposed: derived)
            #expect(lua.exposedObject(at: -2, as: Base.self) === base)
            #expect(lua.exposedObject(at: -2, as: Derived.self) == nil)
            #expect(lua.exposedObject(at: -1, as: Base.self) === derived)
            #expect(lua.exposedObject(at: -1, as: Derived.self) === derived)
            #expect(lua.exposedObject(at: -1, as: Calculator.self) == nil)
            lua.pop(2)
        }
    }

    @Test func swiftErrorsFromMethodsCarryThePosition() throws {
        let state = try makeState()
        #expect(try state.run("local ok, e = pcall(function() Calculator.new():fail() end) return tostring(e)", name: "@s.lua")
            == [.string("s.lua:1: the calculator broke")])
        let error = try #require(throws: LuaError.self) { try state.run("local c = Calculator.new()\n\nc:fail()", name: "@s.lua") }
        #expect(error.message == "s.lua:3: the calculator broke")
        #expect(error.traceback?.contains("stack traceback:") == true)
    }

    @Test func methodsRunInsideCoroutinesAndMayReenter() throws {
        let state = try makeState()
        let values = try state.run(
            """
            local c = Calculator.new()
            local co = coroutine.wrap(function(x)
              local y = coroutine.yield(c:abs(x))
              return c:abs(y)
            end)
            return co(-2), co(-30), c:nested("return 6 * 7")
            """)
        #expect(values == [.integer(2), .integer(30), .integer(42)])
    }

    @Test func manyCallsKeepTheStackBalanced() throws {
        let state = try makeState()
        let calculator = Calculator()
        let result = try state.withStack { (lua) throws(LuaError) -> Int in
            lua.push(calculator)
            lua.setRawGlobal("calc")
            let top = lua.top
            try lua.load(
                """
                local s = 0
                for i = 1, 100000 do s = s + calc:abs(-i) end
                for i = 1, 1000 do pcall(calc.abs, calc, "x") end
                return s
                """, name: "=loop")
            try lua.call(arguments: 0, results: 1)
            defer { lua.pop() }
            #expect(lua.top == top + 1)
            return try lua.value(at: -1)
        }
        #expect(result == 5_000_050_000)
        #expect(calculator.calls == 100_000)
    }
}
