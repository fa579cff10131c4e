import Foundation
import Testing
@testable import BloodMagicLua

/// Issue 25, "The host reads no file a script names": a chunk name is a
/// claim (`load(code, "@/etc/passwd")`), and the position of a definition
/// table's field comes from the text that was loaded under it, never from
/// the file it names.
@Suite("Sandbox: chunk names do not open files")
struct ChunkNameFileTests {
    /// A file outside the scripts whose line 1 opens a table and whose
    /// `line`th line has the field `password`: the line a field error
    /// reports would tell a script where the word is.
    func secretFile(fieldAt line: Int) throws -> String {
        let filler = String(repeating: "\n", count: line - 2)
        let dir = try makeScripts(["secret.txt": "f {\(filler)\npassword = 'hunter2' }\n"])
        return "\(dir)/secret.txt"
    }

    /// The script gives its own one-line text the secret file's name and
    /// calls bm.initializer from it with a table that has the field.
    func fieldError(chunkName: String) throws -> String {
        let host = try makeHost()
        host.setGlobal("name", chunkName)
        return host.failure("""
            local register = load("return function(def) local r = bm.initializer(def) return r end", name)()
            register { type = "T", init = function() end,
              password = 1 }
            """) ?? "no error"
    }

    /// Before: `secret.txt:7:` and `secret.txt:3:`, the lines of the word.
    /// The loaded one-line text under the secret name writes no such field:
    /// the field is blamed where the table that has it is written (issue
    /// 28), in the script's own loaded text.
    @Test func aFieldErrorsLineComesFromTheLoadedTextNotTheNamedFile() throws {
        for line in [3, 7] {
            let path = try secretFile(fieldAt: line)
            #expect(try fieldError(chunkName: "@" + path) == "test.lua:3: bm.initializer: unknown field 'password'")
        }
    }

    /// The same through `bmlua check`, whose warnings point at the field of
    /// a registration made from a chunk named `=<path>` (shown `<path>:1`).
    /// Before: the check read the file and reported the field's line there.
    @Test func checkFindsNoFieldInTheFileAChunkNames() throws {
        let path = try makeScripts(["secret.txt": "f {\n\n\n\ncontainer = 1 }\n"]) + "/secret.txt"
        let dir = try makeScripts(["a.lua": """
            local hook = load("return function(def) local r = bm.hook(def) return r end", "=\(path)")()
            bm.class("Nobodi", {})   -- close to the name below, so the check reports it
            hook { container = "Nobody", property = "p", fn = print }
            """])
        let problems = try ScriptChecker().check(directory: dir)
        let warning = problems.first { $0.message.contains("names container Nobody") }
        #expect(warning?.file == path)
        #expect(warning?.line == 1)
    }

    /// Names that read without end (`/proc/self/pagemap`), that pass a size
    /// check made on a link (`/proc/self/exe`), and a plain outside file:
    /// the run ends at once, the error at the loaded text's line. Before:
    /// the pagemap read until the deadline killed bmlua.
    @Test(arguments: ["/proc/self/pagemap", "/proc/self/exe", "/etc/passwd"])
    func namesOfSpecialFilesAreNeverOpened(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let code = """
            local register = load("return function(def) local r = bm.initializer(def) return r end", "@\(path)")()
            local ok, message = pcall(register, { type = "T", init = function() end, password = 1 })
            print(message)
            """
        let result = try bmlua(["--max-memory", "64M", "-e", code], deadline: 20)
        #expect(!result.timedOut, "bmlua did not finish within 20 s")
        #expect(result.status == 0, "status \(result.status): \(result.stderr)")
        #expect(result.stdout == "\(path):1: bm.initializer: unknown field 'password'\n")
    }

    /// What scripts load themselves still gives field lines: a module read
    /// by `require`, and a text given to `load` under a file's name.
    @Test func textsScriptsLoadGiveFieldLines() throws {
        let dir = try makeScripts(["lib/wiring.lua": """
            return function()
              bm.initializer {
                type = "T",
                contaner = "X",
                init = function() end,
              }
            end
            """])
        let host = try makeHost(scripts: dir)
        #expect(host.failure("require('lib.wiring')()") == "\(dir)/lib/wiring.lua:4: bm.initializer: unknown field 'contaner'")
        let loaded = host.failure("""
            load("local x = 1\\nbm.singleton {\\n  type = 'S',\\n  init = print,\\n  scope = 'instance',\\n}", "@generated.lua")()
            """)
        #expect(loaded == "generated.lua:5: bm.singleton: unknown field 'scope' (a singleton's scope is always \"singleton\")")
    }

    /// A name loaded with two different texts gives no text-derived line
    /// (a frame of that name could run either): the call's own line.
    @Test func aNameLoadedWithTwoTextsGivesTheCallsLine() throws {
        let host = try makeHost()
        let message = host.failure("""
            load("-- another text", "@twice.lua")
            load("bm.initializer {\\n  type = 'T',\\n  init = print,\\n  oops = 1,\\n}", "@twice.lua")()
            """)
        #expect(message == "twice.lua:1: bm.initializer: unknown field 'oops'")
        // A startup script's name, claimed by a script's `load` with another
        // text, loses its field lines too, rather than use either text.
        let dir = try makeScripts(["a.lua": "function later()\n  bm.initializer {\n    type = 'U',\n    oops = 1,\n    init = print,\n  }\nend\n"])
        let scripts = try makeHost(scripts: dir)
        try scripts.loadStartupScripts()
        #expect(scripts.failure("later()") == "\(dir)/a.lua:4: bm.initializer: unknown field 'oops'")
        #expect(scripts.failure("load('x = 1', '@\(dir)/a.lua'); later()") == "\(dir)/a.lua:2: bm.initializer: unknown field 'oops'")
    }

    /// Reading a chunk's text for a position is charged to the script's
    /// instruction budget, a unit a byte: 8 MiB of text cost more than the
    /// budget, so the run stops at the next check (before, the index was
    /// made for free).
    @Test func readingATextForAPositionIsCharged() throws {
        let host = try makeHost(limits: LuaLimits(maxInstructions: 2_000_000))
        let message = host.failure("""
            local text = string.rep("--" .. string.rep("x", 4093) .. "\\n", 2048)
              .. "return function(d) local r = bm.initializer(d) return r end"
            local f = load(text, "@big.lua")()
            local ok = pcall(f, { type = "T", init = print, oops = 1 })
            for i = 1, 100000 do end
            return "not stopped"
            """)
        #expect(message?.contains("instruction limit exceeded") == true, "\(message ?? "no error")")
    }
}
