import Foundation
import TestSupport
import Testing

// Issue 29, names: `bmlua explain TYPE --name N`.

private let namedScripts: [String: String] = [
    "10-db.lua": """
        bm.initializer { type = "Db", name = "primary", init = function() return 1 end }
        bm.singleton { type = "Db", name = "replica", init = function() return 2 end }
        bm.initializer { type = "Db", init = function() return 3 end }
        """,
]

@Suite("bmlua explain --name")
struct BMLuaExplainNamesTests {
    @Test func explainShowsTheNamedWinnerAndTheOthersNames() throws {
        let dir = try scratchDirectory(namedScripts)
        let file = "\(dir.path)/10-db.lua"
        let result = try bmlua(["explain", "Db", "--name", "replica", "--scripts", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.hasPrefix("Db named \"replica\" (no container)\n"), "\(out)")
        #expect(out.contains("  * singleton Db named \"replica\" in any container at \(file):2: specificity 0, any container\n"), "\(out)")
        #expect(out.contains("    initializer Db named \"primary\" in any container at \(file):1: does not apply, registered under the name \"primary\"\n"))
        #expect(out.contains("    initializer Db in any container at \(file):3: does not apply, unnamed (serves only unnamed properties)\n"))
        let unnamed = try bmlua(["explain", "Db", "--scripts", dir.path])
        #expect(unnamed.stdout.contains("  * initializer Db in any container at \(file):3:"), "\(unnamed.stdout)")
        let missing = try bmlua(["explain", "Db", "--name", "backup", "--scripts", dir.path])
        #expect(missing.stdout.contains("no initializer: nothing is registered under the name \"backup\" (names registered: \"primary\", \"replica\")"), "\(missing.stdout)")
    }
}
