import Foundation
import Testing
@testable import BloodMagicLua

@Suite("Startup scripts")
struct BMStartupScriptTests {
    @Test func scriptsLoadInLexicalOrder() throws {
        let dir = try makeScripts([
            "b.lua": "order = (order or '') .. 'b'",
            "a.lua": "order = (order or '') .. 'a'",
            "10-late.lua": "order = (order or '') .. '10'",
            "9-early.lua": "order = (order or '') .. '9'",
            "notes.txt": "not lua",
            "lib/helper.lua": "order = 'never run as a startup script'",
        ])
        let host = try makeHost(scripts: dir)
        try host.loadStartupScripts()
        #expect(try host.lua("return order") == [.string("109ab")])
    }

    @Test func aFailingFileIsRolledBackAndEveryFailureReported() throws {
        let dir = try makeScripts([
            "1-good.lua": "bm.initializer { type = 'Good', init = function() return 'g' end }",
            "2-bad.lua": """
                bm.initializer { type = 'Bad', init = function() return 'b' end }
                bm.class('BadClass', {})
                error('broken on purpose')
                """,
            "3-syntax.lua": "bm.initializer {",
            "4-also-good.lua": "bm.initializer { type = 'AlsoGood', init = function() return 'ag' end }",
        ])
        let host = try makeHost(scripts: dir)
        let error = try #require(throws: ScriptLoadError.self) { try host.loadStartupScripts() }
        #expect(error.failures.count == 2)
        #expect(error.failures[0].message == "\(dir)/2-bad.lua:3: broken on purpose")
        #expect(error.failures[1].kind == .syntax)
        #expect(error.failures[1].message.hasPrefix("\(dir)/3-syntax.lua:1:"))
        let entries = host.registry.entries.compactMap { $0.type?.name }
        #expect(entries.sorted() == ["AlsoGood", "Good"])
        #expect(host.luaClasses["BadClass"] == nil)
        #expect(try host.lua("return bm.resolve('Good'), bm.resolve('AlsoGood'), pcall(bm.resolve, 'Bad')")[0...2]
            == [.string("g"), .string("ag"), .boolean(false)])
    }

    @Test func requireIsConfinedToTheScriptsDirectory() throws {
        let outside = try makeScripts(["secret.lua": "return 'outside'"])
        let dir = try makeScripts([
            "main.lua": "helper = require('lib.helper')",
            "lib/helper.lua": "return { value = 42 }",
        ])
        let host = try makeHost(scripts: dir)
        try host.loadStartupScripts()
        #expect(try host.lua("return helper.value") == [.integer(42)])
        let message = host.failure("return require('secret')") ?? ""
        #expect(message.contains("module 'secret' not found"))
        #expect(!message.contains(outside))
        let absolute = host.failure("return require('\(outside)/secret')") ?? ""
        #expect(absolute.contains("not found"))
    }

    @Test func loadingIsBoundedByLimits() throws {
        let dir = try makeScripts(["spin.lua": "while true do end"])
        let host = try makeHost(scripts: dir, limits: LuaLimits(maxInstructions: 100_000))
        let error = try #require(throws: ScriptLoadError.self) { try host.loadStartupScripts() }
        #expect(error.failures.first?.kind == .instructionLimit)
    }

    @Test func aMissingScriptsDirectoryIsAClearError() throws {
        let host = try makeHost(scripts: "/nonexistent/scripts")
        let error = try #require(throws: ScriptLoadError.self) { try host.loadStartupScripts() }
        #expect(error.description.hasPrefix("cannot read the scripts directory /nonexistent/scripts"))
    }
}
