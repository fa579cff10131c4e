import Foundation
import Testing
import TestSupport
@testable import BloodMagicLua

@Suite("Source positions: field lines and whole chunk names")
struct LuaSourcePositionTests {
    func index(_ text: String) -> LuaSourceIndex { LuaSourceIndex(source: Array(text.utf8)) }

    @Test func findsAFieldOfTheTableACallPasses() {
        let source = index("""
            -- a comment with { type = 1 }
            local s = "a { string } with type = 2"
            bm.initializer {
              type = "Loader",
              init = function()
                local t = { contaner = 1, [[ long { ]] }
                return t
              end,
              contaner = "VC",
              ["scope"] = "instance",
            }
            """)
        #expect(source.line(ofField: "type", inCallAt: 3) == 4)
        #expect(source.line(ofField: "contaner", inCallAt: 3) == 9)   // the definition's own field, not the nested table's
        #expect(source.line(ofField: "scope", inCallAt: 3) == 10)
        #expect(source.line(ofField: "missing", inCallAt: 3) == nil)
        #expect(source.line(ofField: "type", inCallAt: 1) == nil)      // a comment line: no call there
    }

    @Test func skipsLongCommentsStringsWithEscapesAndLeftoverClosers() {
        let source = index("""
            x = { a = 1,
            } bm.hook({
              --[==[ property = "no"
              ]==]
              container = "A\\"}\\z
                 still the string",
              property = 'p',
            })
            """)
        #expect(source.line(ofField: "property", inCallAt: 2) == 7)
        #expect(source.line(ofField: "container", inCallAt: 2) == 5)
    }

    @Test func aRuntimeErrorAboutAFieldPointsAtItsLine() throws {
        let dir = try makeScripts(["a.lua": "\nbm.singleton {\n  type = 'X',\n  scope = 'instance',\n  init = print,\n}\n"])
        let host = try makeHost(scripts: dir)
        #expect {
            try host.loadStartupScripts()
        } throws: { error in
            (error as? ScriptLoadError)?.description
                == "\(dir)/a.lua:4: bm.singleton: unknown field 'scope' (a singleton's scope is always \"singleton\")"
        }
    }

    @Test func cutChunkNamesAreExpandedToTheWholeName() {
        let long = "@/tmp/" + String(repeating: "deep/", count: 15) + "wiring.lua"
        let short = LuaChunkNames.shortSource(of: Array(long.utf8)).map { String(decoding: $0, as: UTF8.self) }
        #expect(short == "..." + String(long.suffix(56)))
        #expect(LuaChunkNames.shortSource(of: Array("@/tmp/short.lua".utf8)) == nil)
        let message = "\(short!):3: boom\n\t\(short!):3: in main chunk"
        let whole = String(long.dropFirst())
        let expanded = String(decoding: LuaChunkNames.expand(Array(message.utf8), names: [Array(long.utf8)]), as: UTF8.self)
        #expect(expanded == "\(whole):3: boom\n\t\(whole):3: in main chunk")
        let loading = "error loading module 'm' from file '\(whole)':\n\t\(short!):2: unexpected symbol"
        #expect(String(decoding: LuaChunkNames.expand(Array(loading.utf8), names: []), as: UTF8.self)
            == "error loading module 'm' from file '\(whole)':\n\t\(whole):2: unexpected symbol")
    }

    /// A message is a script's to choose: one that names thousands of files
    /// (`from file '...'`, each a name to expand) is expanded in one pass,
    /// not once per name (quadratic: 20,000 parts took minutes).
    @Test func aMessageNamingThousandsOfFilesIsExpandedInOnePass() {
        let parts = (0..<20_000).map { i in
            "error loading module 'm' from file '/tmp/\(String(repeating: "x", count: 60))/\(i).lua':\n"
        }
        let message = Array(parts.joined().utf8)
        let started = ContinuousClock.now
        let expanded = LuaChunkNames.expand(message, names: [])
        #expect(expanded == message)
        #expect(ContinuousClock.now - started < TestTime.bound(.seconds(5)))
        let long = "@/tmp/" + String(repeating: "deep/", count: 15) + "wiring.lua"
        let short = String(decoding: LuaChunkNames.shortSource(of: Array(long.utf8))!, as: UTF8.self)
        let many = Array(String(repeating: "\(short):1: x\n", count: 20_000).utf8)
        let names = (0..<5_000).map { Array("@/tmp/\(String(repeating: "y", count: 80))/\($0).lua".utf8) } + [Array(long.utf8)]
        let start2 = ContinuousClock.now
        let result = String(decoding: LuaChunkNames.expand(many, names: names), as: UTF8.self)
        #expect(result == String(repeating: "\(long.dropFirst()):1: x\n", count: 20_000))
        #expect(ContinuousClock.now - start2 < TestTime.bound(.seconds(5)))
    }

    /// An error caught by pcall, whose chunk has returned, is expanded from
    /// the names the state loaded.
    @Test func messagesTakenAfterTheChunkReturnedAreExpandedToo() throws {
        let deep = String(repeating: "very-long-folder-name/", count: 4)
        let dir = try makeScripts(["\(deep)f.lua": "return function() local t = nil; return t.x end"])
        let path = "\(dir)/\(deep)f.lua"
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            try lua.loadFile(path)
            try lua.call(arguments: 0, results: 1)
            lua.setRawGlobal("f")
        }
        let values = try state.run("local ok, e = pcall(f) return e")
        guard case .string(let text) = values.first else {
            Issue.record("no message")
            return
        }
        #expect(text.contains("..."))   // as Lua made it
        #expect(state.expandingChunkNames(text).hasPrefix("\(path):1: attempt to index a nil value"))
    }
}
