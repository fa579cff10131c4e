import CLua
import Testing
@testable import BloodMagicLua

/// The helpers through which the `bm` module and the script host read and
/// build Lua values without Lua's C API (issue 26): they keep the stack's
/// shape, read raw, and agree with the C API they stand for.
@Suite("LuaStack helpers for the layers above the host")
struct LuaStackHelperTests {
    private struct Stop: Error {}

    @Test func luaTypesAreLuasTypeTags() throws {
        let expected: [(LuaType, Int32)] = [
            (.none, LUA_TNONE), (.nil, LUA_TNIL), (.boolean, LUA_TBOOLEAN), (.lightUserdata, LUA_TLIGHTUSERDATA),
            (.number, LUA_TNUMBER), (.string, LUA_TSTRING), (.table, LUA_TTABLE), (.function, LUA_TFUNCTION),
            (.userdata, LUA_TUSERDATA), (.thread, LUA_TTHREAD),
        ]
        for (type, tag) in expected {
            #expect(type.rawValue == tag, "\(type)")
            #expect(LuaType(code: tag) == type, "\(type)")  // the inlined mapping valueType(at:) uses
        }
        for unknown: Int32 in [-2, 9, 100, .min, .max] { #expect(LuaType(code: unknown) == LuaType.none) }
        let state = try LuaState()
        let values = try state.run("return nil, true, 1, 1.5, 's', {}, print, coroutine.create(print), '1'")
        state.withStack { lua in
            for value in values { value.push(onto: lua) }
            let types = (1...lua.top).map { lua.valueType(at: $0) }
            #expect(types == [.nil, .boolean, .number, .number, .string, .table, .function, .thread, .string])
            #expect(lua.valueType(at: lua.top + 1) == .none)
            #expect(lua.isInteger(at: 3) && !lua.isInteger(at: 4) && !lua.isInteger(at: 9))
            #expect(lua.string(at: 5, is: "s") == true)
            #expect(lua.string(at: 5, is: "singleton") == false)
            #expect(lua.string(at: 3, is: "1") == nil)  // a number is not converted
            #expect(lua.valueType(at: 3) == .number)
            lua.setTop(0)
        }
    }

    @Test func aWalkOfEveryEntryLeavesTheStackAsItWas() throws {
        let state = try LuaState()
        let table = try state.run("return setmetatable({ a = 1, b = 2, c = 3 }, { __pairs = error, __index = error })")[0]
        state.withStack { lua in
            lua.push(table)
            let top = lua.top
            var keys: [String] = []
            lua.forEachEntry(ofTableAt: -1) { () -> Bool in
                keys.append(lua.rawString(at: -2) ?? "?")
                return true
            }
            #expect(keys.sorted() == ["a", "b", "c"])
            #expect(lua.top == top)
            var visited = 0
            lua.forEachEntry(ofTableAt: top) { () -> Bool in
                visited += 1
                return false
            }
            #expect(visited == 1 && lua.top == top)
            #expect(throws: Stop.self) {
                try lua.forEachEntry(ofTableAt: top) { () throws(Stop) -> Bool in throw Stop() }
            }
            #expect(lua.top == top)
            lua.pop()
        }
    }

    @Test func recordsSequenceItemsAndRawFields() throws {
        let state = try LuaState()
        state.withStack { lua in
            lua.pushNewTable(fields: 2)
            lua.setField("name", to: "x")
            lua.push(3)
            lua.setField("count")
            lua.pushSequence(["a", "b"]) { lua.push($0) }
            lua.setField("items")
            let record = lua.reference(at: -1)
            lua.pop()
            #expect(lua.top == 0)
            lua.pushRawField("name", of: record)
            #expect(lua.rawString(at: -1) == "x" && lua.top == 1)
            lua.pushRawField("items", of: record)
            #expect(lua.rawLength(at: -1) == 2)
            #expect(lua.pushItem(2, ofTableAt: -1) == .string && lua.rawString(at: -1) == "b")
            #expect(lua.pushItem(3, ofTableAt: -2) == .nil)
            #expect(lua.top == 4)
            lua.setTop(0)
        }
    }

    @Test func sealedValuesAreTheirKindsOnly() throws {
        let state = try LuaState()
        let kind = UnsafeRawPointer(bitPattern: 0x1000)!
        let other = UnsafeRawPointer(bitPattern: 0x2000)!
        state.withStack { lua in
            lua.installSealedMetatable(key: kind, name: "test.sealed")
            lua.installSealedMetatable(key: other, name: "test.other")
            lua.pushSealed(42, key: kind)
            #expect(lua.sealedPayload(at: -1, key: kind) == 42)
            #expect(lua.sealedPayload(at: -1, key: other) == nil)
            #expect(lua.top == 1)
            lua.setRawGlobal("sealed")
            lua.push(UInt64(42))
            #expect(lua.sealedPayload(at: -1, key: kind) == nil)
            lua.pop()
        }
        #expect(try state.run("return getmetatable(sealed), tostring(sealed):match('^test%.sealed')") == [
            .string("test.sealed"), .string("test.sealed"),
        ])
    }

    @Test func aLoadedModuleIsWhatRequireGives() throws {
        let state = try LuaState()
        state.withStack { lua in
            lua.push("the module")
            lua.setLoadedModule("mod")
            #expect(lua.top == 0)
        }
        #expect(try state.run("return require('mod')") == [.string("the module")])
    }
}
