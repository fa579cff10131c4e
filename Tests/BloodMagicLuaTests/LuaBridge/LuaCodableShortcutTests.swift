import Foundation
import Testing
@testable import BloodMagicLua

private struct Plain: Codable, Equatable {
    var name: String
    var count: Int
    var ratio: Double
    var on: Bool
    var tags: [String]
    var sizes: [Int]
    var weights: [Double]
    var flags: [Bool]
}

/// Fills two nested containers in turns, appends through two unkeyed
/// containers of one value and through a super encoder, as `Encoder`
/// allows: the encoder writes straight into Lua tables, so the order of
/// the calls must not matter.
private struct Interleaved: Encodable {
    enum Keys: String, CodingKey { case left, right, list, tail, nothing }
    enum Inner: String, CodingKey { case a, b }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var left = container.nestedContainer(keyedBy: Inner.self, forKey: .left)
        var right = container.nestedContainer(keyedBy: Inner.self, forKey: .right)
        try left.encode(1, forKey: .a)
        try right.encode("r", forKey: .a)
        try left.encode([1, 2], forKey: .b)
        try right.encodeNil(forKey: .b)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        try list.encode("x")
        var again = encoder.container(keyedBy: Keys.self)
        try again.encode(true, forKey: .tail)
        let sub = list.superEncoder()
        try list.encode("z")
        var single = sub.singleValueContainer()
        try single.encode("y")
        _ = container.superEncoder(forKey: .nothing)
    }
}

/// A value that appends through two unkeyed containers of itself.
private struct TwoLists: Encodable {
    func encode(to encoder: any Encoder) throws {
        var first = encoder.unkeyedContainer()
        try first.encode(1)
        var second = encoder.unkeyedContainer()
        try second.encode(2)
        try first.encode(3)
    }
}

/// Nests keyed containers `depth` deep without going through a generic
/// `encode`, so only the containers themselves can refuse the depth.
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

/// Issue 17: strings, numbers, booleans and arrays of them are decoded and
/// encoded directly, with every check of the general path and the same
/// errors at the same coding paths.
@Suite("Codable bridge: plain values and their shortcuts")
struct LuaCodableShortcutTests {
    private let valid = "name = 'n', count = 1, ratio = 0.5, on = true, tags = { 'a' }, sizes = { 1 }, weights = { 1.5 }, flags = { false }"

    private func failure(_ code: String) throws -> String {
        try #require(throws: LuaError.self) { _ = try decode(Plain.self, from: code) }.message
    }

    /// `return { <valid fields>, <override> }`.
    private func with(_ override: String) -> String {
        "return { \(valid), \(override) }"
    }

    @Test func plainFieldsAndArraysDecode() throws {
        let plain = try decode(Plain.self, from: "return { \(valid) }")
        #expect(plain == Plain(
            name: "n", count: 1, ratio: 0.5, on: true, tags: ["a"], sizes: [1], weights: [1.5], flags: [false]))
        // Integral floats are integers; integers are numbers.
        let loose = try decode(Plain.self, from: with("count = 2.0, sizes = { 3.0, 4 }, weights = { 7 }"))
        #expect(loose.count == 2 && loose.sizes == [3, 4] && loose.weights == [7])
    }

    @Test func wrongTypedElementsNameTheirPath() throws {
        #expect(try failure(with("tags = { 'a', 2 }")) == "tags[2]: expected string, got number")
        #expect(try failure(with("sizes = { 1, 'x' }")) == "sizes[2]: expected integer, got string")
        #expect(try failure(with("sizes = { 1, 2.5 }")) == "sizes[2]: expected integer, got number 2.5")
        #expect(try failure(with("sizes = { 2^63 }"))
            == "sizes[1]: integer 9.2233720368548e+18 is out of range for Int (-9223372036854775808...9223372036854775807)")
        #expect(try failure(with("weights = { 1, {} }")) == "weights[2]: expected number, got table")
        #expect(try failure(with("flags = { true, 0 }")) == "flags[2]: expected boolean, got number")
        #expect(try failure(with(#"tags = { "\xff" }"#))
            == "tags[1]: expected UTF-8 string, got bytes that are not valid UTF-8 (read them as LuaBytes, or decode them as Data)")
    }

    @Test func wrongTypedFieldsNameTheirPath() throws {
        #expect(try failure(with("name = 3")) == "name: expected string, got number")
        #expect(try failure(with("count = 'x'")) == "count: expected integer, got string")
        #expect(try failure(with("ratio = true")) == "ratio: expected number, got boolean")
        #expect(try failure(with("on = 1")) == "on: expected boolean, got number")
        #expect(try failure(with("tags = 'a'")) == "tags: expected table, got string")
        #expect(try failure(with("sizes = 5")) == "sizes: expected table, got number")
        #expect(try failure("return { count = 1 }") == "name: missing required field")
    }

    @Test func aPlainArrayThatIsItsOwnAncestorIsACycle() throws {
        let message = try failure("local t = { \(valid) } t.tags = t return t")
        #expect(message == "tags: the table contains itself (a cycle)")
    }

    @Test func plainArraysStopAtTheDepthLimit() throws {
        // Arrays of arrays down to a plain array past the limit.
        let depth = LuaNesting.maxDepth + 5
        let code = "local t = { 1 } for i = 1, \(depth) do t = { t } end return t"
        indirect enum Nest: Decodable {
            case leaf([Int]), nest([Nest])
            init(from decoder: any Decoder) throws {
                if let leaf = try? [Int](from: decoder) {
                    self = .leaf(leaf)
                    return
                }
                self = .nest(try [Nest](from: decoder))
            }
        }
        let error = try #require(throws: LuaError.self) { _ = try decode(Nest.self, from: code) }
        #expect(error.message.contains("nested more than \(LuaNesting.maxDepth) deep"))
    }

    @Test func plainValuesRoundTrip() throws {
        let state = try LuaState()
        let value = Plain(
            name: "π \u{0}x", count: -3, ratio: 1e-9, on: false, tags: ["", "b\u{0}c"], sizes: [Int.min, Int.max],
            weights: [-0.0, .infinity], flags: [true, false, true])
        let back = try state.withStack { (lua) throws(LuaError) -> Plain in
            let top = lua.top
            try lua.push(encoding: value)
            #expect(lua.top == top + 1)
            return try lua.decode(Plain.self, at: -1)
        }
        #expect(back.name == value.name && back.tags == value.tags && back.sizes == value.sizes)
        #expect(back.weights.map(\.bitPattern) == value.weights.map(\.bitPattern) && back.flags == value.flags)
        let types = try state.withStack { (lua) throws(LuaError) -> [LuaValue] in
            try lua.push(encoding: value)
            lua.setRawGlobal("p")
            try lua.load("return math.type(p.count), math.type(p.sizes[1]), math.type(p.weights[1]), #p.flags", name: "=t")
            return try lua.callReturningValues(arguments: 0)
        }
        #expect(types == [.string("integer"), .string("integer"), .string("float"), .integer(3)])
    }

    /// A keyed container pushes each key by its concrete type and straight
    /// onto the state it holds: a string key keeps its embedded NULs, an
    /// `[Int: V]` key stays a Lua integer, both ways.
    @Test func keysKeepEmbeddedNULsAndIntegerKeysStayIntegers() throws {
        struct Keyed: Codable, Equatable {
            var names: [String: Int]
            var ids: [Int: String]
        }
        let value = Keyed(names: ["a\u{0}b": 1, "a": 2], ids: [7: "seven", -1: "minus"])
        let state = try LuaState()
        let back = try state.withStack { (lua) throws(LuaError) -> Keyed in
            try lua.push(encoding: value)
            lua.setRawGlobal("k")
            try lua.load(
                "return k.names['a\\0b'], k.names.a, math.type(next(k.ids)), k.ids[7], k.ids[-1], k.ids['7']", name: "=t")
            let seen = try lua.callReturningValues(arguments: 0)
            #expect(seen == [.integer(1), .integer(2), .string("integer"), .string("seven"), .string("minus"), .nil])
            try lua.load("return { names = { ['x\\0y'] = 3 }, ids = { [5] = 'five' } }", name: "=t")
            try lua.call(arguments: 0, results: 1)
            let fromScript = try lua.decode(Keyed.self, at: -1)
            #expect(fromScript == Keyed(names: ["x\u{0}y": 3], ids: [5: "five"]))
            lua.pop()
            try lua.push(encoding: value)
            defer { lua.pop() }
            return try lua.decode(Keyed.self, at: -1)
        }
        #expect(back == value)
    }

    @Test func containersFilledInAnyOrderEncodeWhatWasWritten() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            let top = lua.top
            try lua.push(encoding: Interleaved())
            #expect(lua.top == top + 1)
            lua.setRawGlobal("v")
            try lua.push(encoding: TwoLists())
            lua.setRawGlobal("lists")
        }
        let values = try state.run("""
            return v.left.a, #v.left.b, v.right.a, v.right.b, v.tail, v.list[1], v.list[2], v.list[3],
              type(v.nothing), next(v.nothing), #lists, lists[1], lists[2], lists[3]
            """)
        #expect(values == [
            .integer(1), .integer(2), .string("r"), .nil, .boolean(true), .string("x"), .string("y"), .string("z"),
            .string("table"), .nil, .integer(3), .integer(1), .integer(2), .integer(3),
        ])
    }

    @Test func nestedContainersPastTheLimitFailAndLeaveTheStack() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws in
            let top = lua.top
            try lua.push(encoding: DeepContainers(depth: 10))
            #expect(lua.top == top + 1)
            lua.pop()
            let error = try #require(throws: LuaError.self) {
                try lua.push(encoding: DeepContainers(depth: LuaNesting.maxDepth + 10))
            }
            #expect(error.message.contains("nested more than \(LuaNesting.maxDepth) deep"))
            #expect(lua.top == top)
        }
    }

    @Test func deepPlainArraysFailToEncodeAtTheirPath() throws {
        // [[...[Int]...]]: the plain shortcut must not skip the depth check.
        struct Nested: Encodable {
            let depth: Int
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                if depth == 0 {
                    try container.encode([1, 2])
                } else {
                    try container.encode(Nested(depth: depth - 1))
                }
            }
        }
        let state = try LuaState()
        try state.withStack { (lua) throws in
            let top = lua.top
            let error = try #require(throws: LuaError.self) { try lua.push(encoding: Nested(depth: LuaNesting.maxDepth)) }
            #expect(error.message.contains("nested more than \(LuaNesting.maxDepth) deep"))
            #expect(error.message.hasPrefix("[1]"))
            #expect(lua.top == top)
            try lua.push(encoding: Nested(depth: LuaNesting.maxDepth - 3))
            #expect(lua.top == top + 1)
        }
    }
}
