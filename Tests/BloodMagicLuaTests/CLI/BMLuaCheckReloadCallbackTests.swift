import Foundation
import TestSupport
import Testing

// Issue 27: `bmlua check` runs the `bm.on_reload` callbacks with made-up
// outcomes (a reload that worked, one that failed with an example error);
// what they print about those must not show as if it were real.

@Suite("bmlua check: bm.on_reload callbacks print nothing")
struct BMLuaCheckReloadCallbackTests {
    @Test func theExampleErrorACallbackPrintsIsNotShown() throws {
        let dir = try scratchDirectory([
            "Scripts/10-reload.lua": """
                bm.on_reload(function(changes)
                  if changes.ok then print("reloaded " .. #changes.replaced) else print("kept: " .. changes.errors[1]) end
                end)
                print("loading prints")
                """,
        ])
        let result = try bmlua(["check", "Scripts"], directory: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("an example error"), "\(result.stderr)")
        #expect(!result.stdout.contains("an example error"), "\(result.stdout)")
        #expect(!result.stderr.contains("reloaded 0"), "\(result.stderr)")
        // What the scripts print while they load still shows.
        #expect(result.stderr.contains("loading prints"), "\(result.stderr)")
        #expect(result.stdout.contains("no problems") || result.stdout.isEmpty, "\(result.stdout)")
    }
}
