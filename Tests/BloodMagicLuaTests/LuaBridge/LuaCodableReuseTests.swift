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
            // An encoding that fails, caught: its failure is its own.
            do {
                try lua.push(encoding: DeepContainers(depth: LuaNesting.maxDepth + 10))
                Issue.record("a value nested past the limit was encoded")
            } catch {}
            try lua.push(encoding: ["a", "b"])
            defer { lua.pop() }
            return try lua.decode([String].self, at: -1)
        }
        try list.encode(inner.count)
    }
}

/// Nests keyed containers `depth` deep without a generic `encode`: past
/// the limit, a container records the encoding's failure and writes nothing.
private struct DeepContainers: Encodable {
    let depth: Int
    enum Keys: String, CodingKey { case next, leaf }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        for _ in 0..<depth {
            container = container.nestedContainer(keyedBy: Keys.self, forKey: .next)
        }
        try container.encode(1, forKey: .leaf)
    }
}

/// The contexts of the encodings an ``EncodeProbe`` took part in, held
/// unowned: that keeps their memory (so a new context cannot take a freed
/// one's address) without keeping an encoding from giving its context back.
private final class EncodingLog {
    struct Seen {
        let identity: ObjectIdentifier
        unowned let context: LuaEncodingContext
    }
    var seen: [Seen] = []
}

/// Logs the context of each encoding it is part of.
private struct EncodeProbe: Encodable {
    let log: EncodingLog

    func encode(to encoder: any Encoder) throws {
        let context = try #require(encoder as? LuaValueEncoder).context
        log.seen.append(.init(identity: ObjectIdentifier(context), context: context))
        var container = encoder.singleValueContainer()
        try container.encode(true)
    }
}

/// Keeps the context of the walk that decoded it (unowned, as above).
private struct DecodeProbe: Decodable {
    let identity: ObjectIdentifier
    unowned let context: LuaDecodingContext

    init(from decoder: any Decoder) throws {
        context = try #require(decoder as? LuaValueDecoder).context
        identity = ObjectIdentifier(context)
    }
}

/// Issue 31: each `LuaEncoder`/`LuaDecoder` call reuses the state's spare
/// context instead of allocating one (and its ancestry or sequence
/// storage); a call made while another is in progress makes its own.
@Suite("Codable bridge: contexts reused across calls")
struct LuaCodableReuseTests {
    @Test func consecutiveCallsRunWithTheSameContext() throws {
        let state = try LuaState()
        let log = EncodingLog()
        var decoded: [DecodeProbe] = []
        try state.withStack { (lua) throws in
            for _ in 0..<3 {
                try lua.push(encoding: EncodeProbe(log: log))
                decoded.append(try lua.decode(DecodeProbe.self, at: -1))
                lua.pop()
            }
        }
        #expect(log.seen.count == 3)
        #expect(Set(log.seen.map(\.identity)).count == 1)
        #expect(Set(decoded.map(\.identity)).count == 1)
    }

    @Test func consecutiveCallsReuseTheStatesContexts() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws in
            try lua.push(encoding: ["tags": ["a"]])
            #expect(try lua.decode([String: [String]].self, at: -1) == ["tags": ["a"]])
            lua.pop()
            // Held weakly: a strong reference would keep a call from giving it back.
            weak let encoding = lua.core.spareEncodingContext
            weak let decoding = lua.core.spareDecodingContext
            #expect(encoding != nil)
            #expect(decoding != nil)
            try lua.push(encoding: ["tags": ["b"]])
            #expect(try lua.decode([String: [String]].self, at: -1) == ["tags": ["b"]])
            lua.pop()
            #expect(encoding != nil && lua.core.spareEncodingContext === encoding)
            #expect(decoding != nil && lua.core.spareDecodingContext === decoding)
        }
    }

    /// The inner walk reads the outer walk's table again, one level down:
    /// sharing the outer walk's ancestry, it would see a cycle.
    @Test func aDecodeInsideADecodeHasItsOwnWalk() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws in
            // A first walk leaves the spare context the outer walk takes.
            try lua.push(encoding: [1])
            #expect(try lua.decode([Int].self, at: -1) == [1])
            lua.pop()
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

    /// The inner encodings run while the outer one holds the state's spare
    /// context: sharing it, the outer one would end with the inner one's failure.
    @Test func anEncodeInsideAnEncodeHasItsOwnContext() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws in
            try lua.push(encoding: [1])  // leaves the spare context the outer encoding takes
            lua.pop()
            try lua.push(encoding: Wrapper(state: state))
            lua.setRawGlobal("w")
            try lua.load("return w.name .. ' ' .. #w.list .. ' ' .. w.list[1] .. ' ' .. w.list[2]", name: "=test")
            try lua.call(arguments: 0, results: 1)
            #expect(lua.rawString(at: -1) == "outer 2 1 2")
            lua.pop()
        }
    }
}
