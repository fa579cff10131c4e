import Foundation
import TestSupport
import Testing

// Issue 29: `bmlua explain` shows a registration's arguments, forwarding,
// scope and decorators, each with its file:line.

@Suite("bmlua explain: arguments, forwarding, scopes, decorators")
struct BMLuaExplainWiringTests {
    @Test func explainShowsEachPieceOfTheWiring() throws {
        let dir = try scratchDirectory(["10-w.lua": """
            bm.initializer { type = "Detail", arguments = { "id", "options" }, init = function(_, id) return id end }
            bm.initializer { type = "Store", scope = "weak", implements = { "Cache" }, init = function() return {} end }
            bm.decorator { type = "Store", fn = function(v) return v end }
            bm.decorator { type = "Store", fn = function(v) return v end }
            """])
        let file = "\(dir.path)/10-w.lua"
        let detail = try bmlua(["explain", "Detail", "--scripts", dir.path])
        #expect(detail.status == 0, "\(detail.stderr)")
        #expect(detail.stdout.contains("  * initializer Detail taking (id, options) in any container at \(file):1:"), "\(detail.stdout)")
        let cache = try bmlua(["explain", "Cache", "--scripts", dir.path])
        #expect(cache.stdout.contains(
            "  * initializer (weak scope) Cache (forwarding to Store registered at \(file):2) in any container at \(file):2:"),
            "\(cache.stdout)")
        let store = try bmlua(["explain", "Store", "--scripts", dir.path])
        #expect(store.stdout.contains(
            "decorators, in the order they run:\n  decorator for Store at \(file):3\n  decorator for Store at \(file):4\n"),
            "\(store.stdout)")
    }
}
