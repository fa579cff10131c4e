import Foundation
import Testing
@testable import BloodMagicLua

// Issue 15: `bm.on_reload` is known to `bmlua types` and `bmlua check`.

@Suite("Live reload: bm.on_reload in the tools")
struct OnReloadToolingTests {
    @Test func theAnnotationsDescribeOnReloadAndItsChanges() throws {
        let text = try makeHost().annotations()
        #expect(text.contains("function bm.on_reload(fn) end"), "\(text)")
        #expect(text.contains("---@param fn fun(changes: bm.ReloadChanges)"))
        #expect(text.contains("---@class bm.ReloadChanges"))
        for field in ["ok boolean", "files string[]", "added bm.Entry[]", "removed bm.Entry[]", "replaced bm.Entry[]", "errors string[]"] {
            #expect(text.contains("---@field \(field)"), "bm.ReloadChanges lacks \(field)")
        }
    }

    @Test func checkRunsTheCallbacksAndReportsOneThatRaises() throws {
        let dir = try makeScripts([
            "10-ok.lua": """
                bm.on_reload(function(changes)
                  if not changes.ok then print(changes.errors[1]) end
                  for _, entry in ipairs(changes.replaced) do print(entry.source) end
                end)
                """,
            "20-bad.lua": """
                bm.on_reload(function(changes)
                  local first = changes.files[1]
                  return first:upper() .. changes.nothing.here
                end)
                """,
            "30-wrong.lua": "\nbm.on_reload('not a function')\n",
        ])
        let problems = try ScriptChecker().check(directory: dir)
        let shown = problems.map(\.description)
        #expect(problems.contains { $0.file == "\(dir)/20-bad.lua" && $0.line == 3 && $0.message.contains("nothing") }, "\(shown)")
        #expect(problems.contains {
            $0.file == "\(dir)/30-wrong.lua" && $0.line == 2
                && $0.message.contains("bm.on_reload: argument #1 must be a function(changes), got string")
        }, "\(shown)")
        #expect(!problems.contains { $0.file.hasSuffix("10-ok.lua") }, "\(shown)")
    }
}
