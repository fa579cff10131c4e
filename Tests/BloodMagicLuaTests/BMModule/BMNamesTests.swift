import Testing
@testable import BloodMagicLua

// Issue 29, names (qualifiers) from Lua: bm.initializer { name = ... },
// bm.resolve(T, { name = ... }), bm.spell.injectable { name = ... }, and
// Swift's @Injectable(named:) served by a script.

final class NamedDatabase: Sendable {
    let url: String
    init(url: String) { self.url = url }
}

extension SpellName<NamedDatabase> {
    static var primary: Self { "primary" }
    static var replica: Self { "replica" }
}

final class NamedReports {
    @Injectable(named: .primary) var writes: NamedDatabase
    @Injectable(named: .replica) var reads: NamedDatabase
}

final class NamedMissingReports {
    @Injectable(named: "missing") var db: NamedDatabase
}

@Suite("bm names (qualifiers)")
struct BMNamesTests {
    /// A reload's validation (a trial resolution) resolves a named property by its name.
    @Test func trialResolutionUsesTheName() {
        let registry = Registry()
        registry.register(NamedDatabase.self, named: .primary) { _ in NamedDatabase(url: "p") }
        registry.register(NamedDatabase.self, named: .replica) { _ in NamedDatabase(url: "r") }
        let missing = Registry.withCurrent(registry) { NamedMissingReports() }
        let failures = SpellReflection.trialResolve(missing)
        #expect(failures.count == 1)
        let message = failures.first.map { "\($0.error)" } ?? ""
        #expect(message.contains("named \"missing\""))
        let fine = Registry.withCurrent(registry) { NamedReports() }
        #expect(SpellReflection.trialResolve(fine).isEmpty)
    }

    @Test func namedInitializersServeNamedResolutionsAndSpells() throws {
        let host = try makeHost()
        let result = try host.lua("""
            bm.initializer { type = "Db", name = "primary", init = function() return "primary" end }
            bm.singleton { type = "Db", name = "replica", init = function() return { url = "replica" } end }
            bm.initializer { type = "Db", init = function() return "plain" end }
            local Reports = bm.class("Reports", {
              writes = bm.spell.injectable { type = "Db", name = "primary" },
              reads = bm.spell.injectable { type = "Db", name = "replica" },
              plain = bm.spell.injectable("Db"),
            })
            local r = Reports.new()
            local again = Reports.new()
            return bm.resolve("Db", { name = "primary" }), bm.resolve("Db"), r.writes, r.reads.url, r.plain,
              r.reads == again.reads, r.writes
            """)
        #expect(result == [.string("primary"), .string("plain"), .string("primary"), .string("replica"), .string("plain"),
                           .boolean(true), .string("primary")])
    }

    @Test func aMissingNameListsTheNamesThatExist() throws {
        let host = try makeHost()
        try host.lua("""
            bm.initializer { type = "Db", name = "primary", init = function() return 1 end }
            bm.initializer { type = "Db", name = "replica", init = function() return 2 end }
            """)
        #expect(host.failure("return bm.resolve('Db', { name = 'primay' })", file: "use.lua")
            == "use.lua:1: no initializer for Db named \"primay\" (names registered for Db: \"primary\", \"replica\")")
        #expect(host.failure("""
            local C = bm.class("C", { db = bm.spell.injectable { type = "Db", name = "backup" } })
            return C.new().db
            """, file: "c.lua")?.hasPrefix("c.lua:2: C.db: no initializer for Db named \"backup\" in C (names registered for Db: \"primary\", \"replica\")") == true)
        // An optional named property reads nil.
        #expect(try host.lua("""
            local D = bm.class("D", { db = bm.spell.injectable { type = "Db", name = "backup", optional = true } })
            return D.new().db == nil
            """) == [.boolean(true)])
    }

    @Test func badNamesAreNamedWithTheirField() throws {
        let host = try makeHost()
        #expect(host.failure("bm.initializer { type = 'T', name = 3, init = print }", file: "n.lua")
            == "n.lua:1: bm.initializer: field 'name' must be a string, got number")
        #expect(host.failure("bm.initializer { type = 'T', name = '', init = print }", file: "n.lua")
            == "n.lua:1: bm.initializer: field 'name' must not be empty (leave it out for no name)")
        #expect(host.failure("return bm.resolve('T', { name = {} })", file: "n.lua")
            == "n.lua:1: bm.resolve: field 'name' must be a string, got table")
        #expect(host.failure("local s = bm.spell.lazy { type = 'T', name = 'x' }", file: "n.lua")
            == "n.lua:1: bm.spell.lazy: unknown field 'name'")
        // A name is counted against the name cap like a type name.
        let long = String(repeating: "n", count: 100_000)
        #expect(host.failure("bm.initializer { type = 'T', name = '\(long)', init = print }")?.contains("name") == true)
    }

    @Test func swiftNamedPropertiesAreServedByScripts() throws {
        let host = try makeHost()
        try host.lua("""
            bm.initializer { type = "NamedDatabase", name = "primary", init = function() return bm.resolve("String") end }
            bm.initializer { type = "String", init = function() return "unused" end }
            """)
        host.registry.register(NamedDatabase.self, named: .replica) { _ in NamedDatabase(url: "swift replica") }
        let reports = Registry.withCurrent(host.registry) { NamedReports() }
        // The script's value for primary does not convert to NamedDatabase: the error names the property.
        #expect(throws: (any Error).self) { try reports.$writes.value() }
        #expect(reports.reads.url == "swift replica")
    }
}
