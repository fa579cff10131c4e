import Foundation
import Testing
@testable import BloodMagicLua

private struct Server: Codable, Equatable {
    var host: String
    var port: Int
    var tags: [String]
    var weight: Double?
}

private enum Mode: String, Codable, Equatable {
    case fast, safe
}

private struct Limits: Codable, Equatable {
    var maxMemory: Int64
    var ratio: Double
}

private struct Config: Codable, Equatable {
    var name: String
    var enabled: Bool
    var servers: [Server]
    var limits: Limits
    var labels: [String: String]
    var counts: [Int: String]
    var mode: Mode
    var nickname: String?
    var matrix: [[Int]]
    var created: Date
    var payload: Data
    var home: URL
}

private class Animal: Codable {
    var legs: Int
    init(legs: Int) { self.legs = legs }
}

private final class Dog: Animal {
    var name: String
    init(name: String, legs: Int) {
        self.name = name
        super.init(legs: legs)
    }
    enum CodingKeys: String, CodingKey { case name }
    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        try super.init(from: container.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try super.encode(to: container.superEncoder())
    }
}

@Suite("Codable bridge")
struct LuaCodableTests {
    private static let sample = Config(
        name: "feeds", enabled: true,
        servers: [
            Server(host: "a.example", port: 80, tags: ["x", "y"], weight: 0.5),
            Server(host: "b.example", port: 8080, tags: [], weight: nil),
        ],
        limits: Limits(maxMemory: 1 << 40, ratio: 2), labels: ["env": "prod", "with space": "ok"],
        counts: [1: "one", 42: "answer"], mode: .safe, nickname: nil, matrix: [[1, 2], [], [3]],
        created: Date(timeIntervalSince1970: 1_700_000_000.25), payload: Data([0, 1, 255, 0]),
        home: URL(string: "https://example.com/feed?x=1")!)

    private func decodeError<T: Decodable>(_ type: T.Type, from code: String) throws -> LuaError {
        try #require(throws: LuaError.self) { _ = try decode(T.self, from: code) }
    }

    @Test func roundTripThroughLua() throws {
        let state = try LuaState()
        let back = try state.withStack { (lua) throws(LuaError) -> Config in
            try lua.push(encoding: Self.sample)
            lua.setRawGlobal("config")
            try lua.load("return config", name: "=test")
            try lua.call(arguments: 0, results: 1)
            return try lua.decode(Config.self, at: -1)
        }
        #expect(back == Self.sample)
    }

    @Test func encodedShapeIsPlainLua() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            try lua.push(encoding: Self.sample)
            lua.setRawGlobal("config")
        }
        let values = try state.run(
            """
            return math.type(config.servers[2].port), math.type(config.limits.ratio), #config.servers,
              config.servers[2].weight, config.nickname, config.counts[42], config.mode,
              config.created, #config.payload, config.home, config.labels["with space"], #config.matrix[2]
            """)
        #expect(values == [
            .string("integer"), .string("float"), .integer(2), .nil, .nil, .string("answer"), .string("safe"),
            .number(1_700_000_000.25), .integer(4), .string("https://example.com/feed?x=1"), .string("ok"), .integer(0),
        ])
    }

    @Test func decodesWhatAScriptWrites() throws {
        let config = try decode(
            Config.self,
            from: """
                return {
                  name = "feeds", enabled = false, mode = "fast", matrix = {},
                  servers = { { host = "h", port = 443.0, tags = { "t" } } },
                  limits = { maxMemory = 1024, ratio = 3 },
                  labels = {}, counts = { [7] = "seven" },
                  created = 0, payload = "\\0ab", home = "file:///tmp/x",
                }
                """)
        #expect(config.servers == [Server(host: "h", port: 443, tags: ["t"], weight: nil)])
        #expect(config.limits == Limits(maxMemory: 1024, ratio: 3))
        #expect(config.counts == [7: "seven"])
        #expect(config.mode == .fast)
        #expect(config.nickname == nil)
        #expect(config.payload == Data([0, 97, 98]))
    }

    @Test func scalarsAtTopLevel() throws {
        #expect(try decode(Int.self, from: "return 3.0") == 3)
        #expect(try decode(Double.self, from: "return 3") == 3)
        #expect(try decode(String?.self, from: "return nil") == nil)
        #expect(try decode([String: [Int]].self, from: "return { a = {1, 2} }") == ["a": [1, 2]])
        let state = try LuaState()
        let kinds = try state.withStack { (lua) throws(LuaError) -> [LuaValue] in
            try lua.push(encoding: 7)
            try lua.push(encoding: 7.0)
            try lua.push(encoding: Optional<Int>.none)
            return [LuaValue(stack: lua, at: -3), LuaValue(stack: lua, at: -2), LuaValue(stack: lua, at: -1)]
        }
        #expect(kinds == [.integer(7), .number(7), .nil])
    }

    @Test func superEncoderAndDecoderNestUnderSuper() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            try lua.push(encoding: Dog(name: "Rex", legs: 4))
            lua.setRawGlobal("dog")
        }
        #expect(try state.run("return dog.name, dog.super.legs") == [.string("Rex"), .integer(4)])
        let dog = try decode(Dog.self, from: "return { name = 'Fido', super = { legs = 3 } }")
        #expect(dog.name == "Fido" && dog.legs == 3)
    }

    @Test func errorsNameTheCodingPath() throws {
        let servers = "servers = { { host = 'a', port = 1, tags = {} }, { host = 'b', port = '80', tags = {} } }"
        let base = "name = 'n', enabled = true, mode = 'fast', matrix = {}, limits = { maxMemory = 1, ratio = 1 }, labels = {}, counts = {}, created = 0, payload = '', home = 'x'"
        #expect(try decodeError(Config.self, from: "return { \(base), \(servers) }").message
            == "servers[2].port: expected integer, got string")
        #expect(try decodeError(Config.self, from: "return { \(base), servers = { { port = 1, tags = {} } } }").message
            == "servers[1].host: missing required field")
        #expect(try decodeError(Config.self, from: "return { \(base), servers = { { host = 'a', port = 1.5, tags = {} } } }").message
            == "servers[1].port: expected integer, got number 1.5")
        #expect(try decodeError(Config.self, from: "return { \(base), servers = { { host = 'a', port = 1, tags = { 'a', 2 } } } }").message
            == "servers[1].tags[2]: expected string, got number")
        #expect(try decodeError(Config.self, from: "return { \(base), servers = {} , labels = { ['my key'] = 3 } }").message
            == "labels[\"my key\"]: expected string, got number")
        #expect(try decodeError(Config.self, from: "return { \(base), servers = {}, mode = 'slow' }").message
            == "mode: Cannot initialize Mode from invalid String value slow")
        #expect(try decodeError(Limits.self, from: "return { maxMemory = 1, ratio = 'x' }").message
            == "ratio: expected number, got string")
        #expect(try decodeError(Limits.self, from: "return 5").message == "expected table, got number")
        #expect(try decodeError([UInt8].self, from: "return { 1, 300 }").message
            == "[2]: integer 300 is out of range for UInt8 (0...255)")
        #expect(try decodeError(Int8.self, from: "return 2^7").message
            == "integer 128 is out of range for Int8 (-128...127)")
        let error = try decodeError(Limits.self, from: "return { ratio = 1 }")
        #expect(error.kind == .conversion)
        #expect(error.message == "maxMemory: missing required field")
    }

    /// An unkeyed container knows its length: reading past it names the
    /// missing element and the length.
    @Test func readingPastTheEndOfASequence() throws {
        struct Pair: Decodable {
            var first: Int, second: Int
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                #expect(container.count != nil)
                first = try container.decode(Int.self)
                second = try container.decode(Int.self)
            }
        }
        let pair = try decode(Pair.self, from: "return { 4, 5, 6 }")
        #expect(pair.first == 4 && pair.second == 5)
        #expect(try decodeError([String: Pair].self, from: "return { p = { 1 } }").message
            == "p[2]: expected a value, got the end of the sequence (1 elements)")
        #expect(try decodeError(Pair.self, from: "return {}").message
            == "[1]: expected a value, got the end of the sequence (0 elements)")
    }

    /// A key that is a reserved word is not a Lua name: the path quotes it.
    @Test func pathsQuoteReservedWords() throws {
        #expect(try decodeError([String: [String: Int]].self, from: #"return { flags = { ["end"] = 'x' } }"#).message
            == #"flags["end"]: expected integer, got string"#)
        #expect(try decodeError([String: Int].self, from: #"return { ["and"] = true }"#).message
            == #"["and"]: expected integer, got boolean"#)
        #expect(try decodeError([String: Int].self, from: #"return { ending = true }"#).message
            == "ending: expected integer, got boolean")
    }

    /// The decoder reads scalars with the plain conversions' readers, so both
    /// accept the same values and word a refusal the same way.
    @Test func decoderAndConversionsReadScalarsAlike() throws {
        let state = try LuaState()
        func outcome<T>(_ body: () throws -> T) throws -> Result<T, LuaError> {
            do { return .success(try body()) } catch let error as LuaError { return .failure(error) }
        }
        func expectAlike<T: Decodable & LuaReadable & Equatable>(
            _ code: String, as type: T.Type, _ expected: Result<T, LuaError>
        ) throws {
            let decoded = try outcome { try decode(T.self, from: code) }
            let read = try outcome { try state.evaluate(code, as: T.self) }
            #expect(decoded == expected, "decoding \(code) as \(T.self)")
            #expect(read == expected, "reading \(code) as \(T.self)")
        }
        func failure<T>(_ message: String) -> Result<T, LuaError> { .failure(LuaError(.conversion, message)) }
        try expectAlike("return 3.0", as: Int.self, .success(3))
        try expectAlike("return 1.5", as: Int.self, failure("expected integer, got number 1.5"))
        try expectAlike("return 1/0", as: Int.self, failure("expected integer, got number inf"))
        try expectAlike("return 'x'", as: Int.self, failure("expected integer, got string"))
        try expectAlike("return 300", as: UInt8.self, failure("integer 300 is out of range for UInt8 (0...255)"))
        try expectAlike("return 2^7", as: Int8.self, failure("integer 128 is out of range for Int8 (-128...127)"))
        try expectAlike("return 2^63", as: Int.self,
            failure("integer 9.2233720368548e+18 is out of range for Int (-9223372036854775808...9223372036854775807)"))
        // A UInt64 above Int64.max is a float in Lua (as Swift pushes it);
        // it reads back while it is exact.
        try expectAlike("return 2^63", as: UInt64.self, .success(UInt64(1) << 63))
        try expectAlike("return 2^64", as: UInt64.self,
            failure("integer 1.844674407371e+19 is out of range for UInt64 (0...18446744073709551615)"))
        try expectAlike(#"return "\xff""#, as: String.self,
            failure("expected UTF-8 string, got bytes that are not valid UTF-8 (read them as LuaBytes, or decode them as Data)"))
        try expectAlike("return 1", as: Bool.self, failure("expected boolean, got number"))
        try expectAlike("return 'x'", as: Double.self, failure("expected number, got string"))
        let big = UInt64(1) << 63 + 2048
        let back = try state.withStack { (lua) throws(LuaError) -> UInt64 in
            lua.push(big)
            defer { lua.pop() }
            return try lua.value(at: -1)
        }
        #expect(back == big)
    }

    /// A value of the wrong Lua type is a type mismatch; one of the right type
    /// that does not fit is corrupted data, as with `JSONDecoder`.
    @Test func aWrongTypeIsAMismatchAndAMisfitIsCorruptedData() throws {
        struct Probe: Decodable {
            var kinds: [String] = []
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                while !container.isAtEnd {
                    do {
                        _ = try container.decode(UInt8.self)
                        kinds.append("ok")
                    } catch DecodingError.typeMismatch {
                        kinds.append("type")
                        _ = try container.decode(LuaSkip.self)
                    } catch DecodingError.dataCorrupted {
                        kinds.append("data")
                        _ = try container.decode(LuaSkip.self)
                    }
                }
            }
        }
        struct LuaSkip: Decodable { init(from decoder: any Decoder) throws {} }
        let probe = try decode(Probe.self, from: "return { 1, 'x', 300, 1.5, true, 2.0 }")
        #expect(probe.kinds == ["ok", "type", "data", "data", "type", "ok"])
    }

    @Test func encodingAnOutOfRangeIntegerFails() throws {
        struct Big: Encodable { var values: [UInt64] }
        let state = try LuaState()
        let error = try #require(throws: LuaError.self) {
            try state.withStack { (lua) throws(LuaError) in try lua.push(encoding: Big(values: [1, .max])) }
        }
        #expect(error.message == "values[2]: integer 18446744073709551615 is out of Lua's integer range (-9223372036854775808...9223372036854775807)")
    }

    @Test func decodingLeavesTheStackAsItWas() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            try lua.push(encoding: Self.sample)
            let top = lua.top
            _ = try lua.decode(Config.self, at: -1)
            #expect(lua.top == top)
            _ = try? lua.decode(Limits.self, at: -1)
            #expect(lua.top == top)
        }
    }
}
