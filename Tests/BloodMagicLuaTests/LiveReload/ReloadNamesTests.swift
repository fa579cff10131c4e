import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, names across a reload: the reload's names replace the old ones
// as a unit (a name the new scripts dropped is gone, with the names that
// remain listed), and a value already injected stays.

@Suite("Live reload: names", .serialized)
struct ReloadNamesTests {
    @Test func aReloadReplacesTheNamesTheScriptsMade() throws {
        let folder = try ScriptFolder(["10-db.lua": """
            bm.initializer { type = "NamedDatabase", name = "primary", init = function() return NamedDatabase.new("v1") end }
            """])
        let host = try loadedHost(folder) { host in
            host.expose(LuaExposedType(NamedDatabase.self)
                .constructor(arguments: ["url"]) { args in NamedDatabase(url: try args.get(1)) })
            host.registry.register(NamedDatabase.self, named: .replica) { _ in NamedDatabase(url: "swift") }
        }
        defer { host.unload() }
        let before = Registry.withCurrent(host.registry) { NamedReports() }
        #expect(before.writes.url == "v1")
        try folder.write("10-db.lua", """
            bm.initializer { type = "NamedDatabase", name = "primary", init = function() return NamedDatabase.new("v2") end }
            bm.initializer { type = "NamedDatabase", name = "archive", init = function() return NamedDatabase.new("old") end }
            """)
        try host.reload()
        let after = Registry.withCurrent(host.registry) { NamedReports() }
        #expect(after.writes.url == "v2")
        #expect(after.reads.url == "swift")
        #expect(before.writes.url == "v1")
        #expect(host.registry.registeredNames(of: SpellTypeKey(NamedDatabase.self)) == ["replica", "primary", "archive"])
        // A reload that drops "primary": the name is gone, the others listed.
        try folder.write("10-db.lua", """
            bm.initializer { type = "NamedDatabase", name = "archive", init = function() return NamedDatabase.new("old") end }
            """)
        try host.reload()
        let dropped = Registry.withCurrent(host.registry) { NamedReports() }
        #expect(throws: SpellError.unknownName(
            property: "writes", container: "NamedReports", type: "NamedDatabase", name: "primary", known: ["replica", "archive"])
        ) { try dropped.$writes.value() }
    }
}
