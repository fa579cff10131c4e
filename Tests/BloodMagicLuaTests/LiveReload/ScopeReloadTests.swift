import Foundation
import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 29: what a reload does to weak, graph and custom-scoped values.
// A custom scope's value is kept like a singleton's (an unchanged
// registration keeps it, a changed one starts empty); a weak registration
// is a new one after any reload (the next resolution makes a new object,
// holders keep theirs); graph values never outlive their resolution.

final class ScopeReloadService {
    static let made = CallCounter()
    let number: Int
    init() { number = ScopeReloadService.made.increment() }
}

final class ScopeReloadHolder {
    @Injectable var service: ScopeReloadService
}

private func scopeReloadHost(_ folder: ScriptFolder) throws -> ScriptHost {
    let host = try ScriptHost(options: .init(
        scriptsDirectory: folder.path, limits: .none, registry: Registry(), preferences: InMemoryPreferenceStore()))
    host.expose(LuaExposedType(ScopeReloadService.self).constructor(arguments: []) { _ in ScopeReloadService() })
    return host
}

private func serviceScript(scope: String, comment: String = "") -> String {
    comment + #"bm.initializer { type = "ScopeReloadService", scope = ""# + scope
        + #"", init = function() return ScopeReloadService.new() end }"#
}

@Suite("Live reload: scoped values", .serialized)
struct ScopeReloadTests {
    @Test func anUnchangedCustomScopedRegistrationKeepsItsValueAndAChangedOneStartsEmpty() throws {
        let folder = try ScriptFolder([
            "10-service.lua": serviceScript(scope: "session"),
            "20-other.lua": #"bm.initializer { type = "String", init = function() return "v1" end }"#,
        ])
        let host = try scopeReloadHost(folder)
        defer { host.unload() }
        host.registry.declareScope(.custom("session"))
        try host.loadStartupScripts()
        let read = { try Registry.withCurrent(host.registry) { try ScopeReloadHolder().$service.value() } }
        let before = try read()
        #expect(try read() === before)

        try folder.write("20-other.lua", #"bm.initializer { type = "String", init = function() return "v2" end }"#)
        try host.reload()
        #expect(try read() === before, "an unchanged session-scoped registration lost its value")

        try folder.write("10-service.lua", serviceScript(scope: "session", comment: "-- changed\n"))
        try host.reload()
        let changed = try read()
        #expect(changed !== before, "a changed session-scoped registration kept the old value")
        #expect(try read() === changed)

        // And the scope still resets as a unit after reloads.
        #expect(host.registry.reset(scope: .custom("session")) == 1)
        #expect(try read() !== changed)
    }

    @Test func aWeakRegistrationIsNewAfterAReloadAndHoldersKeepTheirObject() throws {
        let folder = try ScriptFolder([
            "10-service.lua": serviceScript(scope: "weak"),
            "20-other.lua": #"bm.initializer { type = "String", init = function() return "v1" end }"#,
        ])
        let host = try scopeReloadHost(folder)
        defer { host.unload() }
        try host.loadStartupScripts()
        let read = { try Registry.withCurrent(host.registry) { try ScopeReloadHolder().$service.value() } }
        let held = try read()
        #expect(try read() === held)
        try folder.write("20-other.lua", #"bm.initializer { type = "String", init = function() return "v2" end }"#)
        try host.reload()
        let after = try read()
        #expect(after !== held)
        #expect(held.number < after.number)
        #expect(try read() === after)
    }

    @Test func graphValuesAreSharedWithinAResolutionAfterAReload() throws {
        let folder = try ScriptFolder([
            "10-graph.lua": """
                bm.initializer { type = "Engine", scope = "graph", init = function() return {} end }
                bm.initializer { type = "Car", init = function()
                  return { same = bm.resolve("Engine") == bm.resolve("Engine") }
                end }
                """,
        ])
        let host = try scopeReloadHost(folder)
        defer { host.unload() }
        try host.loadStartupScripts()
        #expect(try host.lua(#"return bm.resolve("Car").same"#) == [.boolean(true)])
        try folder.write("10-graph.lua", "-- changed\n" + (try String(contentsOfFile: folder.file("10-graph.lua"), encoding: .utf8)))
        try host.reload()
        #expect(try host.lua(#"return bm.resolve("Car").same"#) == [.boolean(true)])
    }
}
