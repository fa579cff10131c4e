// Codable across the Lua boundary (issue 17): `lua.push(encoding:)` and
// `lua.decode(_:at:)` of a 10-field struct holding a nested struct and two
// arrays, next to a hand-written C-API push and read of the same struct in
// the same run (the floor: what a careful author writes by hand, with the
// same checks of the Lua data: types, integer exactness, sizes).
//
//   swift run -c release --package-path Benchmarks CodableBenchmarks

import BenchSupport
import BloodMagicLua
import CLuaBench

struct Endpoint: Codable, Equatable {
    var host: String
    var port: Int
}

/// Ten fields: six scalars, a nested struct, two arrays and a string.
struct Settings: Codable, Equatable {
    var name: String
    var version: Int
    var ratio: Double
    var enabled: Bool
    var retries: Int
    var timeout: Double
    var endpoint: Endpoint
    var tags: [String]
    var weights: [Double]
    var owner: String
}

let sample = Settings(
    name: "feed-reader", version: 3, ratio: 0.75, enabled: true, retries: 5, timeout: 2.5,
    endpoint: Endpoint(host: "example.org", port: 8080),
    tags: ["news", "tech", "daily", "long-read"], weights: [0.5, 1.5, 2.0, 4.25],
    owner: "bloodmagic")

// MARK: - The hand-written floor

/// Why a hand-written read refused the table (the floor keeps the checks,
/// not the coding-path messages).
struct ReadFailure: Error {}

/// Pushes a Swift string with its length (embedded NULs kept).
@inline(__always)
func pushString(_ L: OpaquePointer, _ text: String) {
    var text = text
    text.withUTF8 { bytes in
        _ = lua_pushlstring(L, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self), bytes.count)
    }
}

/// Pushes a field name; the caller pushes the value and `lua_rawset`s
/// (raw writes, as the encoder makes).
@inline(__always)
func key(_ L: OpaquePointer, _ name: StaticString) {
    lua_pushlstring(L, UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self), name.utf8CodeUnitCount)
}

func handPush(_ L: OpaquePointer, _ value: Settings) {
    lua_checkstack(L, 5)
    lua_createtable(L, 0, 10)
    key(L, "name"); pushString(L, value.name); lua_rawset(L, -3)
    key(L, "version"); lua_pushinteger(L, lua_Integer(value.version)); lua_rawset(L, -3)
    key(L, "ratio"); lua_pushnumber(L, value.ratio); lua_rawset(L, -3)
    key(L, "enabled"); lua_pushboolean(L, value.enabled ? 1 : 0); lua_rawset(L, -3)
    key(L, "retries"); lua_pushinteger(L, lua_Integer(value.retries)); lua_rawset(L, -3)
    key(L, "timeout"); lua_pushnumber(L, value.timeout); lua_rawset(L, -3)
    key(L, "endpoint")
    lua_createtable(L, 0, 2)
    key(L, "host"); pushString(L, value.endpoint.host); lua_rawset(L, -3)
    key(L, "port"); lua_pushinteger(L, lua_Integer(value.endpoint.port)); lua_rawset(L, -3)
    lua_rawset(L, -3)
    key(L, "tags")
    lua_createtable(L, Int32(value.tags.count), 0)
    for (position, tag) in value.tags.enumerated() {
        pushString(L, tag)
        lua_rawseti(L, -2, lua_Integer(position + 1))
    }
    lua_rawset(L, -3)
    key(L, "weights")
    lua_createtable(L, Int32(value.weights.count), 0)
    for (position, weight) in value.weights.enumerated() {
        lua_pushnumber(L, weight)
        lua_rawseti(L, -2, lua_Integer(position + 1))
    }
    lua_rawset(L, -3)
    key(L, "owner"); pushString(L, value.owner); lua_rawset(L, -3)
}

/// Pushes `t[name]` (raw) from the table at absolute `table`; returns its type.
@inline(__always)
func getField(_ L: OpaquePointer, _ table: Int32, _ name: StaticString) -> Int32 {
    lua_pushlstring(L, UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self), name.utf8CodeUnitCount)
    return lua_rawget(L, table)
}

/// The string on top (popped): must be a string, valid UTF-8.
@inline(__always)
func popString(_ L: OpaquePointer) throws(ReadFailure) -> String {
    defer { lua_settop(L, -2) }
    guard lua_type(L, -1) == LUA_TSTRING else { throw ReadFailure() }
    var length = 0
    let pointer = lua_tolstring(L, -1, &length)!
    guard let text = String(validating: UnsafeRawBufferPointer(start: pointer, count: length).bindMemory(to: UInt8.self), as: UTF8.self)
    else { throw ReadFailure() }
    return text
}

/// The integer on top (popped): a Lua integer, or a float with an integral value.
@inline(__always)
func popInteger(_ L: OpaquePointer) throws(ReadFailure) -> Int {
    defer { lua_settop(L, -2) }
    guard lua_type(L, -1) == LUA_TNUMBER else { throw ReadFailure() }
    var isInteger: Int32 = 0
    let value = lua_tointegerx(L, -1, &isInteger)
    guard isInteger != 0, let exact = Int(exactly: value) else { throw ReadFailure() }
    return exact
}

@inline(__always)
func popDouble(_ L: OpaquePointer) throws(ReadFailure) -> Double {
    defer { lua_settop(L, -2) }
    guard lua_type(L, -1) == LUA_TNUMBER else { throw ReadFailure() }
    return lua_tonumberx(L, -1, nil)
}

@inline(__always)
func popBool(_ L: OpaquePointer) throws(ReadFailure) -> Bool {
    defer { lua_settop(L, -2) }
    guard lua_type(L, -1) == LUA_TBOOLEAN else { throw ReadFailure() }
    return lua_toboolean(L, -1) != 0
}

func handRead(_ L: OpaquePointer, at index: Int32) throws(ReadFailure) -> Settings {
    let t = lua_absindex(L, index)
    guard lua_type(L, t) == LUA_TTABLE, lua_checkstack(L, 4) != 0 else { throw ReadFailure() }
    _ = getField(L, t, "name"); let name = try popString(L)
    _ = getField(L, t, "version"); let version = try popInteger(L)
    _ = getField(L, t, "ratio"); let ratio = try popDouble(L)
    _ = getField(L, t, "enabled"); let enabled = try popBool(L)
    _ = getField(L, t, "retries"); let retries = try popInteger(L)
    _ = getField(L, t, "timeout"); let timeout = try popDouble(L)
    guard getField(L, t, "endpoint") == LUA_TTABLE else { throw ReadFailure() }
    let e = lua_gettop(L)
    _ = getField(L, e, "host"); let host = try popString(L)
    _ = getField(L, e, "port"); let port = try popInteger(L)
    lua_settop(L, -2)
    guard getField(L, t, "tags") == LUA_TTABLE else { throw ReadFailure() }
    let tagCount = Int(lua_rawlen(L, -1))
    var tags: [String] = []
    tags.reserveCapacity(tagCount)
    for position in 0..<tagCount {
        lua_rawgeti(L, -1, lua_Integer(position + 1))
        tags.append(try popString(L))
    }
    lua_settop(L, -2)
    guard getField(L, t, "weights") == LUA_TTABLE else { throw ReadFailure() }
    let weightCount = Int(lua_rawlen(L, -1))
    var weights: [Double] = []
    weights.reserveCapacity(weightCount)
    for position in 0..<weightCount {
        lua_rawgeti(L, -1, lua_Integer(position + 1))
        weights.append(try popDouble(L))
    }
    lua_settop(L, -2)
    _ = getField(L, t, "owner"); let owner = try popString(L)
    return Settings(
        name: name, version: version, ratio: ratio, enabled: enabled, retries: retries, timeout: timeout,
        endpoint: Endpoint(host: host, port: port), tags: tags, weights: weights, owner: owner)
}

// MARK: - Cases

let state = try LuaState()

// Both paths agree on the value (a wrong floor would flatter the ratio).
try state.withStack { (lua) throws(LuaError) in
    handPush(lua.pointer, sample)
    let decoded = try lua.decode(Settings.self, at: -1)
    precondition(decoded == sample, "hand push, Codable decode")
    lua.pop()
    try lua.push(encoding: sample)
    precondition((try? handRead(lua.pointer, at: -1)) == sample, "Codable push, hand read")
    lua.pop()
}

let operations = 100_000
let suite = BenchmarkSuite("Codable across the Lua boundary (10 fields, a nested struct, two arrays of 4)", rounds: 7)

suite.measure("hand-written C API push", operations: operations) { n in
    state.withStack { lua in
        for _ in 0..<n {
            handPush(lua.pointer, sample)
            lua_settop(lua.pointer, -2)
        }
    }
}
suite.measure("lua.push(encoding:)", operations: operations, baseline: "hand-written C API push", goal: 3) { n in
    state.withStack { lua in
        for _ in 0..<n {
            try! lua.push(encoding: sample)
            lua_settop(lua.pointer, -2)
        }
    }
}
suite.measure("hand-written C API read", operations: operations) { n in
    state.withStack { lua in
        handPush(lua.pointer, sample)
        for _ in 0..<n { blackHole(try! handRead(lua.pointer, at: -1)) }
        lua.pop()
    }
}
suite.measure("lua.decode(_:at:)", operations: operations, baseline: "hand-written C API read", goal: 3) { n in
    state.withStack { lua in
        handPush(lua.pointer, sample)
        for _ in 0..<n { blackHole(try! lua.decode(Settings.self, at: -1)) }
        lua.pop()
    }
}
suite.measure("hand-written push + read", operations: operations) { n in
    state.withStack { lua in
        for _ in 0..<n {
            handPush(lua.pointer, sample)
            blackHole(try! handRead(lua.pointer, at: -1))
            lua_settop(lua.pointer, -2)
        }
    }
}
suite.measure("Codable push + decode", operations: operations, baseline: "hand-written push + read", goal: 3) { n in
    state.withStack { lua in
        for _ in 0..<n {
            try! lua.push(encoding: sample)
            blackHole(try! lua.decode(Settings.self, at: -1))
            lua_settop(lua.pointer, -2)
        }
    }
}
suite.printReport()
