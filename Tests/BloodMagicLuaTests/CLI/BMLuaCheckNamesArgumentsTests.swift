import Foundation
import Testing

// Issue 29: `bmlua check` reports an unknown name and a wrong argument count
// as errors at their file:line: statically for spelled properties, and in
// the dry run for resolutions an initializer makes.
@Suite("bmlua check: names and arguments")
struct BMLuaCheckNamesArgumentsTests {
    @Test func unknownNamesAndWrongArgumentCountsAreErrorsAtTheirLines() throws {
        let dir = try scratchDirectory(["wiring.lua": """
            bm.initializer { type = "Detail", arguments = { "id", "options" }, init = function(_, id) return id end }
            bm.initializer { type = "Screen", init = function()
              return { detail = bm.resolve("Detail", { arguments = { 1 } }) }
            end }
            bm.initializer { type = "Other", init = function()
              return bm.resolve("Db", { name = "primay" })
            end }
            bm.initializer { type = "Db", name = "primary", init = function() return 1 end }
            local Shop = bm.class("Shop", {
              detail = bm.spell.injectable("Detail"),
              db = bm.spell.injectable { type = "Db", name = "replica" },
            })
            """])
        let result = try bmlua(["check", "--max-instructions", "2000000", dir.path])
        let lines = result.stdout.split(separator: "\n").map { $0.replacingOccurrences(of: dir.path, with: "$") }
        #expect(result.status == 1)
        #expect(lines == [
            "$/wiring.lua:3: error: $/wiring.lua:1: the initializer for Detail takes arguments (id, options), but it was resolved with (number) (dry run: the initializer for Screen)",
            "$/wiring.lua:6: error: no initializer for Db named \"primay\" (names registered for Db: \"primary\") (dry run: the initializer for Other)",
            "$/wiring.lua:10: error: Shop.detail: the initializer for Detail registered at $/wiring.lua:1 takes arguments (id, options), which a property cannot give (resolve it with arguments, or declare the property as its factory)",
            "$/wiring.lua:11: error: Shop.db: no initializer for Db named \"replica\" in Shop (names registered for Db: \"primary\")",
        ], "\(lines)")
    }
}
