import Foundation
import Testing
@testable import BloodMagicLua

/// bm's own Lua code takes every global and library function it uses into
/// a local when it loads, and never calls a method on a string: a startup
/// script that replaces all of them (and the string metatable's `__index`,
/// which scripts can reach with `getmetatable("")`) changes nothing for the
/// scripts loaded after it.
@Suite("bm survives poisoned globals")
struct BMPoisonedGlobalsTests {
    /// Replaces every function in the globals and in every library table,
    /// and string methods, with one that raises; keeps `pcall` and `tostring`
/// as `saved.pcall` and `saved.tostring`.
    static let poison = """
        local error, pairs, next, type, rawset, getmetatable = error, pairs, next, type, rawset, getmetatable
        local function poisoned() error("poisoned by 00-poison.lua", 0) end
        saved = { pcall = pcall, tostring = tostring }
        local tables, functions = {}, {}
        for name, value in pairs(_G) do
          if type(value) == "table" and name ~= "bm" and name ~= "_G" and name ~= "saved" then
            tables[#tables + 1] = value
          elseif type(value) == "function" then
            functions[#functions + 1] = name
          end
        end
        for _, library in next, tables do
          for key, value in pairs(library) do
            if type(value) == "function" then rawset(library, key, poisoned) end
          end
        end
        for _, name in next, functions do rawset(_G, name, poisoned) end
        getmetatable("").__index = function() error("poisoned string method", 0) end
        """

    static let use = """
        local pcall = saved.pcall
        results = {}
        local A = bm.class("PA", { b = bm.spell.injectable("PB") })
        bm.initializer { type = "PB", init = function() return "served" end }
        results.served = A.new().b
        results.resolved = bm.resolve("PB")

        local _, field = pcall(bm.initializer, { type = "PX",
          contaner = "PA", init = function() end })
        results.field = field

        local CA = bm.class("CA", { next = bm.spell.injectable("CB") })
        local CB = bm.class("CB", { next = bm.spell.injectable("CA") })
        bm.initializer { type = "CB", init = function() local b = CB.new(); local _ = b.next; return b end }
        bm.initializer { type = "CA", init = function() local a = CA.new(); local _ = a.next; return a end }
        local _, cycle = pcall(function() return CA.new().next end)
        results.cycle = cycle

        -- Through Swift resolutions: Lua's stack runs out, and the overflow
        -- check turns the error into the chain (it read `message:find`).
        local SA = bm.class("SA", { next = bm.spell.injectable("SB") })
        local SB = bm.class("SB", { next = bm.spell.injectable("SA") })
        bm.initializer { type = "SB", init = function() local b = SB.new(); local _ = b.next; return b end }
        bm.initializer { type = "SA", init = function() local a = SA.new(); local _ = a.next; return a end }
        local holder = bm.class("Holder", {}).new()
        local _, overflow = pcall(bm.resolve, "SA", { container = holder })
        -- A SpellError from Swift: an error object, read with tostring.
        results.overflow = saved.tostring(overflow)

        results.after = bm.resolve("PB")
        results.after_property = A.new().b
        """

    @Test func laterScriptsStillResolveAndGetTheirErrors() throws {
        let dir = try makeScripts(["00-poison.lua": Self.poison, "10-use.lua": Self.use])
        let host = try makeHost(scripts: dir)
        try host.loadStartupScripts()
        func result(_ key: String) throws -> String {
            guard case .string(let text)? = try host.lua("return results.\(key)").first else { return "(not a string)" }
            return text
        }
        #expect(try result("served") == "served")
        #expect(try result("resolved") == "served")
        #expect(try result("field") == "\(dir)/10-use.lua:9: bm.initializer: unknown field 'contaner'")
        #expect(try result("cycle").hasSuffix("dependency cycle: CA.next -> CB.next -> CA.next"))
        let overflow = try result("overflow")
        #expect(overflow.contains("dependency cycle: SA.next -> SB.next -> SA.next")
            || overflow.contains("dependency cycle: SB.next -> SA.next -> SB.next"), "\(overflow)")
        #expect(!overflow.contains("poisoned"), "\(overflow)")
        // No frame of the failed resolutions is left behind.
        #expect(try result("after") == "served")
        #expect(try result("after_property") == "served")
        #expect(try host.lua("return bm.resolve('PB')") == [.string("served")])
    }

    /// No method call (`s:find(...)`) in bm's own Lua: it would go through
    /// the shared string metatable, which scripts can change. (Comments
    /// are skipped; the check is on the text, so it also covers paths the
    /// test above does not run.)
    @Test(arguments: ["bm.lua", "bm_check.lua"])
    func bmsOwnLuaCallsNoMethods(file: String) {
        let source = String(decoding: file == "bm.lua" ? PackageResources.bm_lua : PackageResources.bm_check_lua, as: UTF8.self)
        for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // The code of the line: without string literals, its comment, or
            // a method's definition (`function Registration:unregister()`).
            let code = String(line).replacing(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/, with: "\"\"")
            let statement = code.firstRange(of: "--").map { String(code[..<$0.lowerBound]) } ?? code
            if statement.firstMatch(of: /^\s*function\s/) != nil { continue }
            let call = statement.firstMatch(of: /[\w)\]]:\w+\s*[("'{]/) != nil
            #expect(!call, "\(file):\(number + 1): \(line)")
        }
    }

    /// The poisoning itself reached what it meant to.
    @Test func thePoisonReachesGlobalsLibrariesAndStringMethods() throws {
        let dir = try makeScripts(["00-poison.lua": Self.poison])
        let host = try makeHost(scripts: dir)
        try host.loadStartupScripts()
        for code in ["return tostring(1)", "return string.find('ab', 'b')", "return ('ab'):find('b')", "return table.concat({})"] {
            #expect(host.failure(code)?.contains("poisoned") == true, "\(code)")
        }
    }
}
