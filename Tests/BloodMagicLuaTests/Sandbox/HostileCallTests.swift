import CLua
import Foundation
import TestSupport
import Testing
@testable import BloodMagicLua

/// Issue 11, "Hostile calls that bring the process down": each attempt ends
/// in a Lua error the script can catch, and the process goes on. Where the
/// old code died, the attempt runs in a `bmlua` child (which must not crash;
/// SWIFT_BACKTRACE=enable=no keeps a crashing child from hanging).
@Suite("Sandbox: hostile calls")
struct HostileCallTests {
    /// Runs `script` with `bmlua` and returns what it printed; the child must
    /// exit normally (no signal) with status 0.
    func runInChild(_ script: String, arguments: [String] = []) throws -> ProcessResult {
        let dir = try makeScripts(["attack.lua": script])
        let result = try bmlua(arguments + [ScriptPath.join(dir, "attack.lua")], environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(result.status == 0, "bmlua died or failed (status \(result.status)): \(result.stderr)")
        return result
    }

    // MARK: Forged handles

    @Test func forgedRegistrationHandlesAreRefused() throws {
        let result = try runInChild("""
            local real = bm.initializer { type = 'X', init = function() return 1 end }
            for _, id in ipairs({ -1, math.mininteger, math.maxinteger, 2^63, 1.5, -0.0, 1e300, 0/0, 'x', {} }) do
              local forged = setmetatable({ id = id, kind = 'initializer' }, getmetatable(real))
              local ok, message = pcall(forged.unregister, forged)
              print(ok, message)
            end
            print(pcall(getmetatable(real).unregister, 42))
            print('real', real:unregister(), real:unregister())
            print('survived')
            """)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.last == "survived")
        #expect(lines.filter { $0.hasPrefix("false\t") && $0.contains("expected a registration made by bm") }.count == 11)
        #expect(lines.contains("real\ttrue\tfalse"))
    }

    @Test func registrationsStillUnregisterThemselves() throws {
        let host = try makeHost()
        try host.lua("reg = bm.initializer { type = 'T', init = function() return 'v' end }")
        #expect(try host.lua("return bm.resolve('T'), tostring(reg):match('^bm.registration #%d+ %(initializer%)$') ~= nil")
            == [.string("v"), .boolean(true)])
        #expect(try host.lua("return reg:unregister(), pcall(bm.resolve, 'T')")[0...1] == [.boolean(true), .boolean(false)])
        // A copy of a real registration carries the real token: it may unregister, once.
        try host.lua("reg2 = bm.hook { property = 'p', fn = function() end }")
        #expect(try host.lua("local copy = {}; for k, v in next, reg2 do copy[k] = v end; setmetatable(copy, getmetatable(reg2)); return copy:unregister(), reg2:unregister()")
            == [.boolean(true), .boolean(false)])
    }

    // MARK: A full stack

    /// A preference whose default is nested `depth` deep, read with the stack
    /// filled to just below what the read needs (found by bisection).
    static func fullStackScript(depth: Int) -> String {
        """
        local nested = {}
        local t = nested
        for i = 1, \(depth) do t.next = {}; t = t.next end
        local C = bm.class('Deep', { p = bm.spell.preference { default = nested } })
        local object = C.new()
        local function read(...) return object.p end
        -- string.byte pushes one value per byte: n values on the stack, then the read.
        local filler = string.rep('x', 1000000)
        local function probe(n)
          return pcall(function() return read(string.byte(filler, 1, n)) end)
        end
        local low, high = 1, 1000000
        while low < high do
          local mid = (low + high + 1) // 2
          if probe(mid) then low = mid else high = mid - 1 end
        end
        local failures = {}
        for _, extra in ipairs({ 1, 2, 3, 5, 8, 16, 32, 64, 128, 256, 512 }) do
          local ok, message = probe(low + extra)
          if not ok then failures[#failures + 1] = message end
        end
        for _, message in ipairs({ failures[1], failures[#failures] }) do print(message) end
        print('survived', #failures)
        """
    }

    @Test(arguments: [40, 190])
    func aFullStackIsALuaErrorNotACrash(depth: Int) throws {
        let result = try runInChild(Self.fullStackScript(depth: depth))
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.last?.hasPrefix("survived\t") == true, "\(result.stdout)")
        #expect(lines.dropLast().allSatisfy { $0.contains("stack overflow") || $0.contains("string slice too long") }, "\(result.stdout)")
    }

    @Test func pushesOfNestedValuesCheckTheStack() throws {
        let state = try LuaState()
        try state.withStack { (lua) throws in
            // Fill the stack to the last few slots Lua allows.
            var free: Int32 = 1 << 19
            while free > 0 {
                if lua_checkstack(lua.pointer, free) != 0 {
                    for _ in 0..<free { lua_pushboolean(lua.pointer, 1) }
                } else {
                    free /= 2
                }
            }
            let filled = lua.top
            var nested = PreferenceValue.int(1)
            for _ in 0..<100 { nested = .array([nested]) }
            let preference = nested
            #expect(throws: LuaError.self) { try preference.push(onto: lua) }
            #expect(lua.top == filled)
            #expect(throws: LuaError.self) { try lua.push(encoding: [[[[[[[[1]]]]]]]]) }
            #expect(lua.top == filled)
            let decoded = try #require(throws: LuaError.self) { try lua.decode([[Int]].self, at: 1) }
            #expect(decoded.kind == .stackOverflow)
            lua.setTop(0)
        }
    }

    // MARK: Deep or cyclic tables

    final class Node: Decodable {
        let next: Node?
    }

    struct Wrapped: Decodable {
        let node: Node
        init(from decoder: any Decoder) throws {
            node = try decoder.singleValueContainer().decode(Node.self)
        }
    }

    @Test func cyclicTablesAreACodingPathError() throws {
        let state = try LuaState()
        let message = try state.withStack { (lua) throws(LuaError) -> String? in
            try lua.load("local t = {}; t.next = { next = t }; return t", name: "=t")
            try lua.call(arguments: 0, results: 1)
            do throws(LuaError) {
                _ = try lua.decode(Node.self, at: -1)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message == "next.next: the table contains itself (a cycle)")
        // A wrapper that decodes its value from the same table is no cycle.
        let wrapped = try state.withStack { (lua) throws(LuaError) -> Wrapped in
            try lua.load("return { next = {} }", name: "=t")
            try lua.call(arguments: 0, results: 1)
            return try lua.decode(Wrapped.self, at: -1)
        }
        #expect(wrapped.node.next != nil)
    }

    @Test func deepTablesAreACodingPathError() throws {
        let state = try LuaState()
        func decodeChain(_ depth: Int) throws(LuaError) -> Node {
            try state.withStack { (lua) throws(LuaError) -> Node in
                try lua.load("local t = {} for i = 1, \(depth - 1) do t = { next = t } end return t", name: "=t")
                try lua.call(arguments: 0, results: 1)
                return try lua.decode(Node.self, at: -1)
            }
        }
        _ = try decodeChain(LuaNesting.maxDepth)
        let error = try #require(throws: LuaError.self) { try decodeChain(100_000) }
        #expect(error.message.hasSuffix(": tables nested more than \(LuaNesting.maxDepth) deep"))
        #expect(error.message.hasPrefix("next.next.next."))
    }

    @Test func exposedConstructorsDecodeHostileTablesSafely() throws {
        final class Holder {
            let node: Node
            init(_ node: Node) { self.node = node }
        }
        let state = try LuaState()
        state.expose(LuaExposedType<Holder>(name: "Holder").constructor(decoding: Node.self) { Holder($0) })
        let cyclic = try #require(throws: LuaError.self) {
            try state.run("local t = {}; t.next = t; return Holder.new(t)", name: "@deep.lua")
        }
        #expect(cyclic.message.hasPrefix("deep.lua:1:"))
        #expect(cyclic.message.contains("the table contains itself"))
        let deep = try #require(throws: LuaError.self) {
            try state.run("local t = {} for i = 1, 100000 do t = { next = t } end return Holder.new(t)", name: "@deep.lua")
        }
        #expect(deep.message.contains("nested more than \(LuaNesting.maxDepth) deep"))
    }

    @Test func otherWalksStopAtCyclesAndDepth() throws {
        let host = try makeHost()
        let cyclic = host.failure("local t = {}; t.self = t; bm.preference { property = 'p', default = t }") ?? ""
        #expect(cyclic == "test.lua:1: bm.preference: field 'default': self: cannot store it: the table contains itself (a cycle)")
        let deep = host.failure("local t = {} for i = 1, 100000 do t = { t } end bm.preference { property = 'p', default = t }") ?? ""
        #expect(deep.contains("tables nested more than \(LuaNesting.maxDepth) deep"))
        // The pretty printer shows a cycle and cuts depth, whatever depth it is asked for.
        let text = try host.state.withStack { (lua) throws(LuaError) -> String in
            try lua.load("local t = {} for i = 1, 100000 do t = { t } end t.me = t return t", name: "=t")
            try lua.call(arguments: 0, results: 1)
            return try LuaPrettyPrinter(maxDepth: .max).render(at: -1, in: lua)
        }
        #expect(text.contains("me = <cycle>"))
        #expect(text.contains("{...}"))
        // The encoder refuses a Swift value nested past the limit.
        indirect enum Chain: Encodable { case end, link(Chain) }
        var chain = Chain.end
        for _ in 0..<(LuaNesting.maxDepth + 10) { chain = .link(chain) }
        let value = chain
        let encoded = try #require(throws: LuaError.self) { try host.state.withStack { (lua) throws(LuaError) in try lua.push(encoding: value) } }
        #expect(encoded.message.contains("nested more than \(LuaNesting.maxDepth) deep"))
    }

    // MARK: Odd command lines and bytes

    @Test(arguments: [".", "/", "", "dir/", "/nonexistent/x.lua"])
    func bmluaReportsPathsThatAreNotScripts(path: String) throws {
        let directory = try scratchDirectory(["dir/inner.lua": "print(1)"])
        let result = try bmlua([path], environment: ["SWIFT_BACKTRACE": "enable=no"], directory: directory)
        #expect(result.status == 1, "status \(result.status): \(result.stderr)")
        #expect(result.stderr.hasPrefix("bmlua: cannot open \(path.isEmpty ? "''" : path):"), "\(result.stderr)")
    }

    @Test(arguments: [["check", "."], ["list", "/"], ["check", "/nonexistent"], ["--scripts", "", "-e", "print(1)"]])
    func bmluaCommandsTakeAnyDirectory(arguments: [String]) throws {
        let directory = try scratchDirectory(["a.lua": "x = 1"])
        let result = try bmlua(arguments, environment: ["SWIFT_BACKTRACE": "enable=no"], directory: directory)
        #expect([0, 1, 2].contains(result.status), "status \(result.status): \(result.stderr)")
    }

    @Test func invalidUTF8InErrorsIsShownEscaped() throws {
        let state = try LuaState()
        let error = try #require(throws: LuaError.self) { try state.run("error('\\255 bad')", name: "@bytes.lua") }
        #expect(error.message == "bytes.lua:1: \\255 bad")
        #expect(error.line == 1)
        let mixed = try #require(throws: LuaError.self) { try state.run("error('é\\200\\255ok', 0)", name: "@bytes.lua") }
        #expect(mixed.message == "é\\200\\255ok")
        #expect(try state.run("return '\\255'", name: "=t").first?.description == "\\255")
        let shown = try state.withStack { (lua) throws(LuaError) -> [String] in
            try lua.load("return '\\255\"', { ['\\254'] = 1 }", name: "=t")
            try lua.call(arguments: 0, results: 2)
            return [try lua.describe(at: -2), try LuaPrettyPrinter().render(at: -2, in: lua), try LuaPrettyPrinter().render(at: -1, in: lua)]
        }
        #expect(shown == ["\\255\"", "\"\\255\\\"\"", "{\n  [\"\\254\"] = 1,\n}"])
        let child = try bmlua(["-e", "error('\\255 bad')"], environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(child.status == 1)
        #expect(child.stderr.hasPrefix("bmlua: (command line):1: \\255 bad"), "\(child.stderr)")
    }

    // MARK: Poisoned globals

    @Test func definitionChecksSurvivePoisonedGlobals() throws {
        let dir = try makeScripts([
            "1-poison.lua": """
                real = { pcall = pcall, setmetatable = setmetatable, getmetatable = getmetatable }
                local accept = function() return true end
                -- The shared string metatable first (its __index is the string table).
                local strings = getmetatable('').__index
                strings.match = accept
                strings.format = function() return '' end
                strings.find = accept
                strings.gsub = function(s) return s, 0 end
                strings.sub = function() return '' end
                getmetatable('').__index = { match = accept, format = accept, sub = accept, find = accept }
                type = function() return 'table' end
                pairs = function() return function() return nil end end
                ipairs = pairs
                next = function() return nil end
                tostring = function() return 'x' end
                rawget = function() return nil end
                rawlen = function() return 0 end
                rawequal = function() return true end
                select = function() return 0 end
                error = function() end
                getmetatable = function() return nil end
                setmetatable = function(t) return t end
                table.concat = function() return '' end
                table.sort = function() end
                """,
            "2-victim.lua": """
                local pcall, setmetatable, getmetatable = real.pcall, real.setmetatable, real.getmetatable
                local results = {}
                local function rejected(label, f)
                  local ok, message = pcall(f)
                  results[#results + 1] = label .. '=' .. (ok and 'accepted' or message)
                end
                rejected('name', function() bm.class('bad name!', {}) end)
                rejected('number', function() bm.class(42, {}) end)
                rejected('field', function() bm.class('K', { [1] = 'x' }) end)
                rejected('unknown', function() bm.initializer { type = 'T', init = print, bogus = 1 } end)
                rejected('missing', function() bm.initializer { type = 'T' } end)
                rejected('type', function() bm.initializer { type = 1, init = print } end)
                rejected('scope', function() bm.initializer { type = 'T', init = print, scope = 'forever' } end)
                rejected('spell', function() bm.define_spell { name = 'not an identifier', get = print } end)
                rejected('protocols', function() bm.initializer { protocols = { 1 }, init = print } end)
                -- A table that only claims a spell's metatable is a plain field, not a spell.
                local fake = setmetatable({ kind = 'lazy', type = {} }, { __metatable = getmetatable(bm.spell.lazy('X')) })
                local Fake = bm.class('Fake', { p = fake })
                results[#results + 1] = 'fake=' .. (Fake.new().p == fake and 'plain' or 'spell')
                local Good = bm.class('Good', { service = bm.spell.lazy('Service'), id = bm.spell.final() })
                bm.initializer { type = 'Service', init = function() return 'served' end }
                local good = Good.new { id = 7 }
                results[#results + 1] = 'good=' .. good.service .. '/' .. good.id
                victim = results
                """,
        ])
        let host = try makeHost(scripts: dir)
        try host.loadStartupScripts()
        let results = try host.state.withStack { (lua) throws(LuaError) -> [String] in
            lua.pushRawGlobal("victim")
            defer { lua.pop() }
            return try lua.value(at: -1)
        }
        #expect(results.count == 11, "\(results)")
        for line in results.dropLast(2) {
            #expect(!line.hasSuffix("=accepted"), "\(line)")
            #expect(line.contains("2-victim.lua:"), "\(line)")
        }
        #expect(results.suffix(2) == ["fake=plain", "good=served/7"])
    }
}
