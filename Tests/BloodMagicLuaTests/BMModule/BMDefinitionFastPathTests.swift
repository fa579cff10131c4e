import Testing
@testable import BloodMagicLua

/// Issue 17: valid `bm.initializer` and `bm.singleton` definitions are read
/// in one raw pass; anything else goes through the generic check, so the
/// registrations and the errors are the same as before.
@Suite("bm.initializer definitions read in one pass")
struct BMDefinitionFastPathTests {
    @Test func everyFieldIsReadFromAValidDefinition() throws {
        let host = try makeHost()
        let result = try host.lua("""
            local VC = bm.class("VC", { a = bm.spell.injectable("A"), b = bm.spell.injectable { protocols = { "P", "Q" } } })
            bm.initializer { type = "A", container = VC, scope = "singleton", init = function() return {} end }
            bm.initializer { protocols = { "Q", "P", "P" }, container = "VC", init = function() return "pq" end }
            bm.singleton { type = "S", init = function() return 1 end }
            local one, two = VC.new(), VC.new()
            return one.a == two.a, one.b
            """)
        #expect(result == [.boolean(true), .string("pq")])
        let entries = host.registry.entries.filter { $0.kind == .singleton || $0.kind == .initializer }
        #expect(entries.map(\.scope) == [.singleton, .instance, .singleton])
        #expect(entries.map { $0.type?.name } == ["A", "any P & Q", "S"])
        #expect(entries.map { "\($0.container)" }.prefix(2).allSatisfy { $0.contains("VC") })
    }

    @Test func whatTheOnePassRefusesGetsTheGenericErrors() throws {
        let host = try makeHost()
        #expect(host.failure("bm.initializer { type = 'T', init = print, [1] = true }")
            == "test.lua:1: bm.initializer: unknown field [1]")
        #expect(host.failure("bm.initializer { type = 'T', container = 5, init = print }")
            == "test.lua:1: bm.initializer: field 'container' must be a class name or a class, got number")
        #expect(host.failure("bm.initializer { protocols = 'P', init = print }")
            == "test.lua:1: bm.initializer: field 'protocols' must be a table, got string")
        #expect(host.failure("bm.initializer { type = 'T', init = 'print' }")
            == "test.lua:1: bm.initializer: field 'init' must be a function, got string")
        #expect(host.failure("bm.singleton { type = 'T', init = print, scope = 'singleton' }")
            == "test.lua:1: bm.singleton: unknown field 'scope' (a singleton's scope is always \"singleton\")")
        #expect(host.failure("bm.initializer('T')") == "test.lua:1: bm.initializer: expected a definition table, got string")
        #expect(host.failure("bm.initializer { protocols = {}, init = print }")
            == "test.lua:1: bm.initializer: field 'protocols' is empty")
    }

    /// A definition's metatable cannot supply fields: both passes read raw.
    @Test func fieldsOfferedByAMetatableAreNotRead() throws {
        let host = try makeHost()
        let message = host.failure("""
            bm.initializer(setmetatable({ type = 'T' }, { __index = { init = function() return 1 end } }))
            """)
        #expect(message == "test.lua:1: bm.initializer: missing required field 'init'")
        let sneaky = host.failure("""
            bm.initializer(setmetatable({ init = print }, { __index = { type = 'T' } }))
            """)
        #expect(sneaky == "test.lua:1: bm.initializer: missing required field 'type' (or 'protocols')")
    }
}
