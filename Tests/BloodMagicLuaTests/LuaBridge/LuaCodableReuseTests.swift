import Testing
@testable import BloodMagicLua

private extension CodingUserInfoKey {
    static let state = CodingUserInfoKey(rawValue: "state")!
    static let childIndex = CodingUserInfoKey(rawValue: "childIndex")!
}

/// `{ name = ... }`, whose `init(from:)` decodes another value from Lua (a
/// new walk) while its own walk is inside its table.
private struct Outer: Decodable {
    var name: String
    var child: Child
    enum CodingKeys: String, CodingKey { case name }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let state = try #require(decoder.userInfo[.state] as? LuaState)
        let index = try #require(decoder.userInfo[.childIndex] as? Int32)
        child = try state.withStack { (lua) throws(LuaError) in try lua.decode(Child.self, at: index) }
        name = try container.decode(String.self, forKey: .name)
    }
}

/// `{ n = ..., parent = { name = ... } }`.
private struct Child: Decodable, Equatable {
    var n: Int
    var parent: Parent
    struct Parent: Decodable, Equatable { var name: String }
}

/// `{ name = ..., inner = ... }`, whose `encode(to:)` encodes another value
/// into Lua (a new encoding) between two of its own fields.
private struct Wrapper: Encodable {
    let state: LuaState
    enum CodingKeys: String, CodingKey { case name, list }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("outer", forKey: .name)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        try list.encode(1)
        let inner = try state.withStack { (lua) throws(LuaError) -> [String] in
            try lua.push(encoding: ["a", "b"])
            defer { lua.pop() }
            return try lua.decode([String].self, at: -1)
        }
        try list.encode(inner.count)
    }
}

/// Issue 31: each `LuaEncoder`/`LuaDecoder` call reuses the state's spare
/// context instead of allocating one (and its ancestry or sequence
/// storage); a call made while another is in progress makes its own.
@Suite("Codable bridge: contexts reused across calls")
struct LuaCodableReuseTests {
    @Test func consecutiveCallsReuseTheStatesContexts() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            try lua.push(encoding: ["tags": ["a"]])
            let encoding = try #require(lua.core.spareEncodingContext)
            #expect(try lua.decode([String: [String]].self, at: -1) == ["tags": ["a"]])
            let decoding = try #require(lua.core.spareDecodingContext)
            lua.pop()
            try lua.push(encoding: ["tags": ["b"]])
            #expect(try lua.decode([String: [String]].self, at: -1) == ["tags": ["b"]])
            lua.pop()
            #expect(lua.core.spareEncodingContext === encoding)
            #expect(lua.core.spareDecodingContext === decoding)
        }
    }

    /// The inner walk reads the outer walk's table again, one level down:
    /// sharing the outer walk's ancestry, it would see a cycle.
    @Test func aDecodeInsideADecodeHasItsOwnWalk() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            try lua.load("local t = { name = 'n' } return t, { n = 1, parent = t }", name: "=test")
            try lua.call(arguments: 0, results: 2)
            var decoder = LuaDecoder()
            decoder.userInfo = [.state: state, .childIndex: lua.top]
            let outer = try decoder.decode(Outer.self, from: lua, at: -2)
            #expect(outer.name == "n")
            #expect(outer.child == Child(n: 1, parent: .init(name: "n")))
            lua.pop(2)
            // Both walks are over: the next one still works, from the spare.
            try lua.load("return { name = 'm' }, { n = 2, parent = { name = 'p' } }", name: "=test")
            try lua.call(arguments: 0, results: 2)
            decoder.userInfo = [.state: state, .childIndex: lua.top]
            #expect(try decoder.decode(Outer.self, from: lua, at: -2).child == Child(n: 2, parent: .init(name: "p")))
            lua.pop(2)
        }
    }

    @Test func anEncodeInsideAnEncodeHasItsOwnContext() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            try lua.push(encoding: Wrapper(state: state))
            lua.setRawGlobal("w")
            try lua.load("return w.name .. ' ' .. #w.list .. ' ' .. w.list[1] .. ' ' .. w.list[2]", name: "=test")
            try lua.call(arguments: 0, results: 1)
            #expect(lua.rawString(at: -1) == "outer 2 1 2")
            lua.pop()
        }
    }
}
