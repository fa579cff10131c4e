import Foundation
import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 29: what a reload does to weak, graph and custom-scoped values.
// A custom scope's value is kept like a singleton's (an unchanged
// registration keeps it, a changed one starts empty); a weak registration
// is a new one after any reload (the next resolution makes a new object,
// holders keep theirs); graph values never outlive their resolution.

/// A host on `folder` that exposes ``ScopedLuaService`` (BMScopeTests),
/// its scripts loaded after `prepare`.
private func scopeReloadHost(_ folder: ScriptFolder, prepare: (ScriptHost) -> Void = { _ in }) throws -> ScriptHost {
    try loadedHost(folder) { host in
        host.expose(LuaExposedType(ScopedLuaService.self).constructor(arguments: []) { _ in ScopedLuaService() })
        prepare(host)
    }
}

/// A folder with the service registered in `scope` and another script to
/// change, and a host on it (see ``scopeReloadHost(_:prepare:)``).
private func serviceHost(
    scope: String, prepare: (ScriptHost) -> Void = { _ in }
) throws -> (folder: ScriptFolder, host: ScriptHost) {
    let folder = try ScriptFolder([
        "10-service.lua": serviceScript(scope: scope),
        "20-other.lua": #"bm.initializer { type = "String", init = function() return "v1" end }"#,
    ])
    return (folder, try scopeReloadHost(folder, prepare: prepare))
}

/// Changes the other script, not the service's, and reloads.
private func reloadChangingTheOtherScript(_ folder: ScriptFolder, _ host: ScriptHost) throws {
    try folder.write("20-other.lua", #"bm.initializer { type = "String", init = function() return "v2" end }"#)
    try host.reload()
}

/// The service `host`'s registry serves a new holder.
private func readService(_ host: ScriptHost) throws -> ScopedLuaService {
    try Registry.withCurrent(host.registry) { try ScopedLuaHolder().$service.value() }
}

private func serviceScript(scope: String, comment: String = "") -> String {
    comment + #"bm.initializer { type = "ScopedLuaService", scope = ""# + scope
        + #"", init = function() return ScopedLuaService.new() end }"#
}

@Suite("Live reload: scoped values", .serialized)
struct ScopeReloadTests {
    @Test func anUnchangedCustomScopedRegistrationKeepsItsValueAndAChangedOneStartsEmpty() throws {
        let (folder, host) = try serviceHost(scope: "session") { $0.registry.declareScope(.custom("session")) }
        defer { host.unload() }
        let read = { try readService(host) }
        let before = try read()
        #expect(try read() === before)

        try reloadChangingTheOtherScript(folder, host)
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
        let (folder, host) = try serviceHost(scope: "weak")
        defer { host.unload() }
        let read = { try readService(host) }
        let held = try read()
        #expect(try read() === held)
        try reloadChangingTheOtherScript(folder, host)
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
        #expect(try host.lua(#"return bm.resolve("Car").same"#) == [.boolean(true)])
        try folder.write("10-graph.lua", "-- changed\n" + (try String(contentsOfFile: folder.file("10-graph.lua"), encoding: .utf8)))
        try host.reload()
        #expect(try host.lua(#"return bm.resolve("Car").same"#) == [.boolean(true)])
    }
}
