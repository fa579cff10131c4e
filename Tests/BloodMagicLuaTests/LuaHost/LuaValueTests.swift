import Testing
import TestSupport
@testable import BloodMagicLua

@Suite("Lua values round-trip")
struct LuaValueTests {
    let state: LuaState
    init() throws { state = try LuaState() }

    /// Pushes `value` from Swift, reads it back from the same slot.
    func roundTrip<T: LuaConvertible>(_ value: T) throws -> T {
        try state.withStack { (lua) throws(LuaError) -> T in
            lua.push(value)
            defer { lua.pop() }
            return try lua.value(at: -1)
        }
    }

    @Test func scalars() throws {
        #expect(try roundTrip(true) == true)
        #expect(try roundTrip(false) == false)
        #expect(try roundTrip(42) == 42)
        #expect(try roundTrip(-7.25) == -7.25)
        #expect(try roundTrip("héllo") == "héllo")
    }

    @Test func largestIntegersSurviveExactly() throws {
        #expect(try roundTrip(Int.max) == Int.max)
        #expect(try roundTrip(Int.min) == Int.min)
        // Lua sees the same values, as integers.
        #expect(try state.withStack { (lua) throws(LuaError) -> String in
            lua.push(Int.max)
            lua.setRawGlobal("big")
            try lua.load("return math.type(big) .. ' ' .. tostring(big == math.maxinteger)", name: "=t")
            try lua.call(arguments: 0, results: 1)
            defer { lua.pop() }
            return try lua.value(at: -1)
        } == "integer true")
        #expect(try state.evaluate("return math.mininteger", as: Int.self) == Int.min)
    }

    @Test func integerAndFloatStayDistinct() throws {
        let values = try state.run("return 3, 3.0, 2^53", name: "=t")
        #expect(values == [.integer(3), .number(3.0), .number(9007199254740992.0)])
        // A float with an exact integer value reads as Int; 3.5 does not.
        #expect(try state.evaluate("return 3.0", as: Int.self) == 3)
        #expect(throws: LuaError.self) { try state.evaluate("return 3.5", as: Int.self) }
        // Swift Double pushes a float, Int pushes an integer.
        let types = try state.withStack { (lua) throws(LuaError) -> [LuaValue] in
            try lua.load("local a, b = ... return math.type(a), math.type(b)", name: "=t")
            lua.push(1.0)
            lua.push(1)
            return try lua.callReturningValues(arguments: 2)
        }
        #expect(types == [.string("float"), .string("integer")])
    }

    @Test func narrowIntegersAreRangeChecked() throws {
        #expect(try state.evaluate("return 127", as: Int8.self) == 127)
        let error = try #require(throws: LuaError.self) { try state.evaluate("return 128", as: Int8.self) }
        #expect(error.kind == .conversion)
        #expect(error.message.contains("out of range for Int8"))
        #expect(throws: LuaError.self) { try state.evaluate("return -1", as: UInt.self) }
    }

    @Test func embeddedNULsSurviveBothWays() throws {
        let text = "a\0b\0\0c"
        #expect(try roundTrip(text) == text)
        // Swift -> Lua: Lua counts every byte.
        let length = try state.withStack { (lua) throws(LuaError) -> Int in
            try lua.load("return #(...)", name: "=t")
            lua.push(text)
            try lua.call(arguments: 1, results: 1)
            defer { lua.pop() }
            return try lua.value(at: -1)
        }
        #expect(length == 6)
        // Lua -> Swift.
        #expect(try state.evaluate(#"return "x\0y""#, as: String.self) == "x\0y")
        #expect(try state.evaluate(#"return "x\0y""#, as: String.self).utf8.count == 3)
    }

    @Test func bytesThatAreNotUTF8() throws {
        let bytes = LuaBytes([0xff, 0x00, 0xfe, 0x41])
        #expect(try roundTrip(bytes) == bytes)
        let error = try #require(throws: LuaError.self) { try state.evaluate(#"return "\xff""#, as: String.self) }
        #expect(error.message.contains("not valid UTF-8"))
        #expect(try state.run(#"return "\xff\0""#, name: "=t") == [.bytes([0xff, 0x00])])
    }

    @Test func arraysDictionariesAndOptionals() throws {
        #expect(try roundTrip([1, 2, 3]) == [1, 2, 3])
        #expect(try roundTrip(["a": 1, "b": 2]) == ["a": 1, "b": 2])
        #expect(try roundTrip([["x": [1.5]], [:]]) == [["x": [1.5]], [:]])
        #expect(try roundTrip(Optional<Int>.none) == nil)
        #expect(try roundTrip(Optional(5)) == 5)
        #expect(try state.evaluate("return {10, 20, nil}", as: [Int].self) == [10, 20])
        let error = try #require(throws: LuaError.self) {
            try state.evaluate("return {1, 'two', 3}", as: [Int].self)
        }
        #expect(error.message == "[2]: expected integer, got string")
        let keyError = try #require(throws: LuaError.self) {
            try state.evaluate("return {[1] = 'a'}", as: [String: String].self)
        }
        #expect(keyError.message == "expected string keys, got a number key")
    }

    /// The table builders behind Array, Dictionary, PreferenceValue and the
    /// encoder: elements land at 1...n (nils leave holes, not shifts), keys
    /// of any kind, and the stack is left with just the table.
    @Test func tableBuildersPlaceEveryEntry() throws {
        try state.withStack { (lua) throws(LuaError) in
            let top = lua.top
            lua.pushSequence([10, nil, 30] as [Int?]) { lua.push($0) }
            lua.setRawGlobal("seq")
            lua.pushTable([1: "one", 7: "seven"], key: { lua.push($0) }, value: { lua.push($0) })
            lua.setRawGlobal("byInt")
            lua.pushStringKeyed(["a": [1, 2], "b": []]) { lua.push($0) }
            lua.setRawGlobal("byName")
            #expect(lua.top == top)
        }
        #expect(try state.run("return seq[1], seq[2], seq[3], rawlen(seq) >= 1", name: "=t")
            == [.integer(10), .nil, .integer(30), .boolean(true)])
        #expect(try state.run("return byInt[1], byInt[7], math.type(next(byInt))", name: "=t")
            == [.string("one"), .string("seven"), .string("integer")])
        #expect(try state.run("return #byName.a, byName.a[2], #byName.b", name: "=t")
            == [.integer(2), .integer(2), .integer(0)])
    }

    /// Keys print bare only when they are Lua names; a reserved word or any
    /// other string is quoted, so the output loads back as the same table.
    @Test func prettyPrinterQuotesKeysThatAreNotNames() throws {
        let code = #"return { ["end"] = 1, ok = 2, ["local"] = 3, _x = 4, ["1a"] = 5, ["a b"] = 6, ["while_"] = 7 }"#
        let rendered = try state.withStack { (lua) throws(LuaError) -> String in
            try lua.load(code, name: "=t")
            try lua.call(arguments: 0, results: 1)
            defer { lua.pop() }
            return try LuaPrettyPrinter().render(at: -1, in: lua)
        }
        #expect(rendered == """
            {
              ["1a"] = 5,
              _x = 4,
              ["a b"] = 6,
              ["end"] = 1,
              ["local"] = 3,
              ok = 2,
              while_ = 7,
            }
            """)
        let reloaded = try state.run("local t = " + rendered + #" return t["end"], t["local"], t.ok, t.while_"#, name: "=t")
        #expect(reloaded == [.integer(1), .integer(3), .integer(2), .integer(7)])
    }

    /// Rendering a value may run its `__tostring`, which may change the
    /// table being printed; the printer walks a copy of the pairs, so the
    /// walk itself cannot fail (a raw `next` over a table rehashed under it
    /// raises, and there it would escape into Swift).
    @Test func prettyPrinterSurvivesATableChangedWhileItRenders() throws {
        let unsafe = try LuaState(libraries: .unsafe)
        let code = """
            local t = {}
            debug.setmetatable(print, { __tostring = function()
              for k in pairs(t) do t[k] = nil end
              for i = 1, 64 do t["x" .. i] = i end
              return "fn"
            end })
            for i = 1, 16 do t["f" .. i] = print end
            return t
            """
        let rendered = try unsafe.withStack { (lua) throws(LuaError) -> String in
            try lua.load(code, name: "=t")
            try lua.call(arguments: 0, results: 1)
            defer { lua.pop() }
            return try LuaPrettyPrinter().render(at: -1, in: lua)
        }
        let lines = rendered.split(separator: "\n")
        #expect(lines.count == 18, "\(rendered)")
        #expect(lines.filter { $0.hasSuffix(" = fn,") }.count == 16)
        #expect(lines.contains("  f16 = fn,"))
    }

    @Test func mismatchNamesBothTypes() throws {
        let error = try #require(throws: LuaError.self) { try state.evaluate("return {}", as: String.self) }
        #expect(error.kind == .conversion)
        #expect(error.message == "expected string, got table")
    }
}

extension LuaValueTests {
    /// Issue 25, "`bmlua resolve` printing the same": a table of shared
    /// subtables prints each at every place it is reached. Past
    /// `maxValues` values the printer stops, naming the key it reached,
    /// instead of building text for 10¹⁶ of them.
    @Test func prettyPrinterStopsAtMaxValuesAndNamesTheKey() throws {
        let started = ContinuousClock.now
        let error = try #require(throws: LuaError.self) {
            try state.withStack { (lua) throws(LuaError) -> String in
                try lua.load("""
                    local t = { leaf = "x" }
                    for i = 1, 50 do
                      local wide = {}
                      for k = 1, 100 do wide[k] = t end
                      t = { items = wide }
                    end
                    return t
                    """, name: "=dag")
                try lua.call(arguments: 0, results: 1)
                defer { lua.pop() }
                return try LuaPrettyPrinter().render(at: -1, in: lua)
            }
        }
        #expect(ContinuousClock.now - started < TestTime.bound(.seconds(3)))
        #expect(error.kind == .conversion)
        #expect(error.message.hasPrefix("the value has more than 100000 values to print, a table reached more than once counting each time (stopped at items[1].items["), "\(error.message)")
    }
}
