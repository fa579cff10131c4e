import Testing
@testable import BloodMagicLua

private struct Profile: Codable, Equatable {
    var name: String
    var age: Int
    var nickname: String?
    var address: Address
    struct Address: Codable, Equatable {
        var city: String
        var zip: Int
    }
}

@Suite("Codable bridge: tables made to size")
struct LuaEncoderSizeHintTests {
    /// Each type's table is made with room for the fields its last value
    /// wrote; values with fewer or more fields still encode exactly.
    @Test func aTypeRemembersHowManyFieldsItWrote() throws {
        let state = try LuaState()
        let full = Profile(name: "Ada", age: 36, nickname: "A", address: .init(city: "London", zip: 1))
        let partial = Profile(name: "Bob", age: 40, nickname: nil, address: .init(city: "Paris", zip: 2))
        try state.withStack { (lua) throws(LuaError) in
            try lua.push(encoding: full)
            lua.pop()
            #expect(lua.core.encodedFieldCounts[ObjectIdentifier(Profile.self)] == 4)
            #expect(lua.core.encodedFieldCounts[ObjectIdentifier(Profile.Address.self)] == 2)
            try lua.push(encoding: partial)  // nil nickname: 3 fields, in a table made for 4
            #expect(try lua.decode(Profile.self, at: -1) == partial)
            lua.pop()
            #expect(lua.core.encodedFieldCounts[ObjectIdentifier(Profile.self)] == 3)
            try lua.push(encoding: full)
            #expect(try lua.decode(Profile.self, at: -1) == full)
            lua.pop()
        }
    }

    /// A large dictionary does not make the next small one of its type large:
    /// the hint stops at 32 fields.
    @Test func theHintIsCapped() throws {
        let state = try LuaState()
        let large = Dictionary(uniqueKeysWithValues: (0..<500).map { ("k\($0)", $0) })
        try state.withStack { (lua) throws(LuaError) in
            try lua.push(encoding: large)
            #expect(try lua.decode([String: Int].self, at: -1) == large)
            lua.pop()
            #expect(lua.core.encodedFieldCounts[ObjectIdentifier([String: Int].self)] == LuaEncodingContext.maximumFieldCountHint)
            try lua.push(encoding: ["one": 1])
            #expect(try lua.decode([String: Int].self, at: -1) == ["one": 1])
            lua.pop()
            #expect(lua.core.encodedFieldCounts[ObjectIdentifier([String: Int].self)] == 1)
        }
    }
}
