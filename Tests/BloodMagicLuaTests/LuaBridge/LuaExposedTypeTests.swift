import Foundation
import Testing
@testable import BloodMagicLua

/// A class exposed to Lua in these tests.
private class Manager: LuaExposable {
    let baseURL: String
    var timeout: Int = 30
    var fetched: [String] = []
    let counter: LiveCounter?

    init(baseURL: String, counter: LiveCounter? = nil) {
        self.baseURL = baseURL
        self.counter = counter
        counter?.up()
    }
    deinit { counter?.down() }

    func fetch(_ path: String) -> String {
        fetched.append(path)
        return baseURL + path
    }
}

private final class Cache: LuaExposable {
    var entries: [String: String] = [:]
    var client: Manager?
}

private struct ManagerConfig: Decodable {
    var baseURL: String
    var timeout: Int?
}

private func requestManagerType(counter: LiveCounter? = nil) -> LuaExposedType<Manager> {
    LuaExposedType<Manager>(name: "RequestManager")
        .constructor(arguments: ["baseURL", "timeout?"]) { args in
            let manager = Manager(baseURL: try args.get(1), counter: counter)
            if let timeout = try args.get(2, as: Int?.self) { manager.timeout = timeout }
            return manager
        }
        .property("baseURL", \.baseURL)
        .property("timeout", \.timeout)
        .property("fetchCount", get: { $0.fetched.count })
        .method("fetch", arguments: ["path"]) { manager, args in manager.fetch(try args.get(1)) }
        .method("reset") { manager, _ in manager.fetched.removeAll() }
        .method("both", arguments: ["a", "b"], pushing: { manager, args in
            args.stack.push(manager.baseURL)
            args.stack.push(args.count)
            return 2
        })
        .conforms(to: "RequestClient", "Closable")
}

private func cacheType() -> LuaExposedType<Cache> {
    LuaExposedType<Cache>(name: "Cache")
        .constructor { _ in Cache() }
        .property("client", \.client)
        .method("same", arguments: ["client"]) { cache, args in
            try args.get(1, as: Manager.self) === cache.client
        }
        .describe { "Cache(\($0.entries.count) entries)" }
}

private func makeState(counter: LiveCounter? = nil) throws -> LuaState {
    let state = try LuaState()
    state.expose(requestManagerType(counter: counter))
    state.expose(cacheType())
    return state
}

@Suite("Exposed Swift types")
struct LuaExposedTypeTests {
    @Test func constructorsMethodsAndProperties() throws {
        let state = try makeState()
        let values = try state.run(
            """
            local m = RequestManager.new("https://a.example")
            local n = RequestManager.new { baseURL = "https://b.example", timeout = 5 }
            local body = m:fetch("/feed")
            m.timeout = 12
            return body, m.baseURL, m.timeout, n.baseURL, n.timeout, m.fetchCount, m:reset(), m.fetchCount, m.missing
            """)
        #expect(values == [
            .string("https://a.example/feed"), .string("https://a.example"), .integer(12),
            .string("https://b.example"), .integer(5), .integer(1), .nil, .integer(0), .nil,
        ])
        #expect(try state.run("local m = RequestManager.new('x') return m:both(1, 2)") == [.string("x"), .integer(2)])
        #expect(try state.run("return RequestManager:new('c').baseURL, RequestManager:new { baseURL = 'd' }.baseURL") == [.string("c"), .string("d")])
        #expect(try state.run("local m = RequestManager.new('x') return RequestManager.fetch(m, '/y')") == [.string("x/y")])
    }

    /// `__index` of a type with properties is a C function: methods come
    /// from the members table without leaving C, properties from their
    /// getters, anything else is nil; called oddly (through the debug
    /// library) it neither crashes nor takes another object for `self`.
    @Test func indexFindsMethodsThenProperties() throws {
        let state = try LuaState(libraries: .unsafe)
        state.expose(requestManagerType())
        state.expose(cacheType())
        let values = try state.run(
            """
            local m = RequestManager.new('x')
            local index = debug.getmetatable(m).__index
            return m.fetch == RequestManager.fetch, m.baseURL, m.fetchCount, m[1], m[true], m.new,
                index(m, 'baseURL'), index(m, 'timeout', 'extra'), index(m), index()
            """)
        #expect(values == [.boolean(true), .string("x"), .integer(0), .nil, .nil, .nil, .string("x"), .integer(30), .nil, .nil])
        let error = try #require(throws: LuaError.self) {
            try state.run("local m = RequestManager.new('x') debug.getmetatable(m).__index(Cache.new(), 'baseURL')", name: "@i.lua")
        }
        #expect(error.message == "i.lua:1: RequestManager.baseURL: expected a RequestManager object as self, got Cache")
    }

    @Test func decodableConstructor() throws {
        let state = try LuaState()
        state.expose(
            LuaExposedType<Manager>(name: "RequestManager")
                .constructor(decoding: ManagerConfig.self) { config in
                    let manager = Manager(baseURL: config.baseURL)
                    manager.timeout = config.timeout ?? 1
                    return manager
                }
                .property("timeout", \.timeout))
        #expect(try state.run("return RequestManager.new { baseURL = 'u', timeout = 9 }.timeout") == [.integer(9)])
        let error = try #require(throws: LuaError.self) { try state.run("RequestManager.new { baseURL = 1 }", name: "@boot.lua") }
        #expect(error.message == "boot.lua:1: RequestManager.new: baseURL: expected string, got number")
    }

    @Test func argumentErrorsNameMethodArgumentAndType() throws {
        let state = try makeState()
        func message(_ code: String) throws -> String {
            try #require(throws: LuaError.self) { try state.run(code, name: "@app.lua") }.message
        }
        let m = "local m = RequestManager.new('x')\n"
        #expect(try message(m + "m:fetch(42)") == "app.lua:2: RequestManager.fetch: bad argument #1 'path' (expected string, got number)")
        #expect(try message(m + "m:fetch('a', 'b', 'c')") == "app.lua:2: RequestManager.fetch: expected 1 argument, got 3")
        #expect(try message(m + "m:fetch()") == "app.lua:2: RequestManager.fetch: expected 1 argument, got 0")
        #expect(try message(m + "m.fetch('/x')") == "app.lua:2: RequestManager.fetch: expected a RequestManager object as self, got string (call it as obj:fetch(...))")
        #expect(try message("RequestManager.new()") == "app.lua:1: RequestManager.new: expected 1 to 2 arguments, got 0")
        #expect(try message("RequestManager.new(1)") == "app.lua:1: RequestManager.new: bad argument #1 'baseURL' (expected string, got number)")
        #expect(try message("RequestManager.new { baseURL = 1 }") == "app.lua:1: RequestManager.new: bad argument 'baseURL' (expected string, got number)")
        #expect(try message("RequestManager.new { timeout = 1 }") == "app.lua:1: RequestManager.new: bad argument 'baseURL' (missing)")
        #expect(try message("RequestManager.new { basURL = 'x' }") == "app.lua:1: RequestManager.new: unknown argument 'basURL' (expected baseURL, timeout)")
        #expect(try message(m + "m.baseURL = 'y'") == "app.lua:2: cannot assign to read-only property 'baseURL' of RequestManager")
        #expect(try message(m + "m.colour = 'red'") == "app.lua:2: RequestManager has no property 'colour'")
        #expect(try message(m + "m.fetch = print") == "app.lua:2: cannot assign to method 'fetch' of RequestManager")
        #expect(try message(m + "m[1] = true") == "app.lua:2: RequestManager has no property [number]")
        #expect(try message(m + "m.timeout = 'soon'") == "app.lua:2: RequestManager.timeout: bad value (expected integer, got string)")
        #expect(try message("local c = Cache.new() c:same(RequestManager)") == "app.lua:1: Cache.same: bad argument #1 'client' (expected RequestManager, got table)")
        #expect(try message("local c = Cache.new() c:same(c)") == "app.lua:1: Cache.same: bad argument #1 'client' (expected RequestManager, got Cache)")
    }

    @Test func scriptsCanCatchBridgeErrors() throws {
        let state = try makeState()
        let result = try state.run(
            "local m = RequestManager.new('x') local ok, e = pcall(m.fetch, m, {}) return ok, e", name: "@c.lua")
        #expect(result == [.boolean(false), .string("c.lua:1: RequestManager.fetch: bad argument #1 'path' (expected string, got table)")])
    }

    @Test func identityRoundTrip() throws {
        let state = try makeState()
        let manager = Manager(baseURL: "https://id.example")
        let cache = Cache()
        cache.client = manager
        try state.withStack { (lua) throws(LuaError) in
            lua.push(manager)
            lua.setRawGlobal("m")
            lua.push(cache)
            lua.setRawGlobal("c")
            lua.register("give") { lua in
                lua.push(manager)
                return 1
            }
            lua.register("take") { lua in
                let object: Manager = try lua.argument(1, of: "take")
                lua.push(object === manager)
                return 1
            }
        }
        let values = try state.run(
            """
            local a, b = give(), give()
            return rawequal(a, b), rawequal(a, m), a == m, take(a), c.client == m, c:same(m), c:same(RequestManager.new('z'))
            """)
        #expect(values == [.boolean(true), .boolean(true), .boolean(true), .boolean(true), .boolean(true), .boolean(true), .boolean(false)])
        let back = try state.withStack { (lua) throws(LuaError) -> Manager in
            lua.pushRawGlobal("m")
            return try lua.value(at: -1, as: Manager.self)
        }
        #expect(back === manager)
        // A property set from Lua writes through to the Swift object itself.
        _ = try state.run("m.timeout = 7")
        #expect(manager.timeout == 7)
        // An object made in Lua comes back as itself too.
        let made = try state.withStack { (lua) throws(LuaError) -> Bool in
            try lua.load("local r = RequestManager.new('q') return r, r", name: "=t")
            try lua.call(arguments: 0, results: 2)
            return lua.exposedObject(at: -1, as: Manager.self) === lua.exposedObject(at: -2, as: Manager.self)
        }
        #expect(made)
    }

    @Test func tostringAndEquality() throws {
        let state = try makeState()
        let values = try state.run(
            """
            local m, n = RequestManager.new('a'), RequestManager.new('a')
            return tostring(m):match('^RequestManager: 0x%x+$') ~= nil, tostring(Cache.new()), m == m, m == n, m ~= n,
              getmetatable(m)
            """)
        #expect(values == [.boolean(true), .string("Cache(0 entries)"), .boolean(true), .boolean(false), .boolean(true), .string("RequestManager")])
    }

    @Test func objectsAreReleasedWhenLuaDropsThem() throws {
        let counter = LiveCounter()
        let state = try makeState(counter: counter)
        _ = try state.run(
            """
            keep = RequestManager.new('kept')
            for i = 1, 1000 do local m = RequestManager.new('x' .. i) m:fetch('/') end
            """)
        _ = try state.run("collectgarbage() collectgarbage()")
        #expect(counter.live == 1)
        _ = try state.run("keep = nil collectgarbage() collectgarbage()")
        #expect(counter.live == 0)

        // A Swift object pushed to Lua stays alive while Lua holds it, and
        // is pushed as the same userdata again after Lua dropped the old one.
        var manager: Manager? = Manager(baseURL: "s", counter: counter)
        weak let weakManager = manager
        try state.withStack { (lua) throws(LuaError) in
            lua.push(manager!)
            lua.setRawGlobal("held")
        }
        manager = nil
        #expect(weakManager != nil)
        _ = try state.run("held = nil collectgarbage() collectgarbage()")
        #expect(weakManager == nil)
        #expect(counter.live == 0)
    }

    @Test func closingTheStateReleasesObjects() throws {
        let counter = LiveCounter()
        do {
            let state = try makeState(counter: counter)
            _ = try state.run("a = RequestManager.new('x') b = { RequestManager.new('y') }")
            #expect(counter.live == 2)
        }
        #expect(counter.live == 0)
    }

    @Test func lookupsByNameTypeAndProtocol() throws {
        let state = try makeState()
        let info = try #require(state.exposedType(named: "RequestManager"))
        #expect(ObjectIdentifier(info.swiftType) == ObjectIdentifier(Manager.self))
        #expect(info.protocols == ["RequestClient", "Closable"])
        #expect(info.conforms(to: "RequestClient"))
        #expect(!info.conforms(to: "Cache"))
        #expect(info.methodNames == ["both", "fetch", "reset"])
        #expect(info.propertyNames == ["baseURL", "fetchCount", "timeout"])
        #expect(state.exposedType(for: Manager.self) === info)
        #expect(state.exposedType(named: "Nope") == nil)
        let found = try state.withStack { (lua) throws(LuaError) -> String? in
            try lua.load("return RequestManager.new('x')", name: "=t")
            try lua.call(arguments: 0, results: 1)
            return lua.exposedType(ofObjectAt: -1)?.name
        }
        #expect(found == "RequestManager")
    }

    @Test func subclassesUseTheNearestExposedType() throws {
        final class Special: Manager {}
        let state = try makeState()
        let special = Special(baseURL: "sp")
        let values = try state.withStack { (lua) throws(LuaError) -> [LuaValue] in
            lua.push(exposed: special)
            lua.setRawGlobal("s")
            try lua.load("return s:fetch('/1'), s.baseURL, tostring(s):sub(1, 15)", name: "=t")
            return try lua.callReturningValues(arguments: 0)
        }
        #expect(values == [.string("sp/1"), .string("sp"), .string("RequestManager:")])
    }

    @Test func unexposedClassesCrossBare() throws {
        final class Opaque: LuaExposable {}
        let state = try LuaState()
        let object = Opaque()
        let back = try state.withStack { (lua) throws(LuaError) -> Opaque in
            lua.push(object)
            #expect(try lua.describe(at: -1).hasPrefix("Opaque: 0x"))
            return try lua.value(at: -1)
        }
        #expect(back === object)
        #expect(try state.run("return Opaque") == [.nil])  // no global is set for a bare type
    }

    @Test func unqualifiedNames() {
        #expect(LuaExposedType<Manager>().name == "Manager")
        #expect(LuaExposedType<AnyObject>.unqualifiedName(of: Swift.Array<Int>.self) == "Array<Int>")
    }
}
