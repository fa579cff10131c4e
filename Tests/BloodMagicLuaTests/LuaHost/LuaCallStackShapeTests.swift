import CLua
import Testing
@testable import BloodMagicLua

/// A protected call leaves exactly its results where its function was, and
/// nothing of the traceback handler it inserted, whatever the result count,
/// and nothing at all when it fails; what lies below is untouched.
@Suite("Protected calls: the stack they leave")
struct LuaCallStackShapeTests {
    @Test(arguments: [Int32(0), 1, 2, 3, LUA_MULTRET])
    func aCallLeavesItsResultsWhereItsFunctionWas(results: Int32) throws {
        let state = try LuaState()
        let function = try state.run("return function(a, b) return a + b, a * b, 'third' end")[0]
        try state.withStack { lua in
            lua.push("below")
            lua.push(function)
            lua.push(3)
            lua.push(4)
            try lua.call(arguments: 2, results: results)
            let kept: [LuaValue] = [.integer(7), .integer(12), .string("third")]
            let expected: [LuaValue] = results == LUA_MULTRET
                ? kept : (0..<Int(results)).map { $0 < kept.count ? kept[$0] : .nil }
            #expect(lua.top == 1 + Int32(expected.count))
            for (offset, value) in expected.enumerated() {
                #expect(try lua.value(at: 2 + Int32(offset), as: LuaValue.self) == value)
            }
            #expect(try lua.value(at: 1, as: LuaValue.self) == LuaValue.string("below"))
        }
    }

    @Test(arguments: [Int32(0), 1, 2, LUA_MULTRET])
    func aFailingCallLeavesNothing(results: Int32) throws {
        let state = try LuaState()
        let function = try state.run("return function(x) error('no ' .. x) end", name: "=calls")[0]
        try state.withStack { lua in
            lua.push("below")
            lua.push(function)
            lua.push("way")
            let error = try #require(throws: LuaError.self) { try lua.call(arguments: 1, results: results) }
            #expect(error.message == "calls:1: no way")
            #expect(error.traceback?.isEmpty == false)
            #expect(lua.top == 1)
            #expect(try lua.value(at: 1, as: LuaValue.self) == LuaValue.string("below"))
        }
    }
}
