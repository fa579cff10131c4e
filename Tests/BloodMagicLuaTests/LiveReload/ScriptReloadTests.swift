import Foundation
import Synchronization
import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 15: ScriptHost.reload() as one transaction.

final class ReloadGreeter {
    @Injectable var greeting: String
    @Injectable var fromSwift: ReloadSwiftService
    @Preference var volume: Int = 1
    @Partial var badge: ReloadBadge
}

final class ReloadSwiftService: Sendable {}

struct ReloadBadge: Decodable, Equatable {
    let text: String
}

/// Counts the objects Lua constructs, across states.
final class ReloadCounted {
    static let made = Atomic<Int>(0)
    let number: Int
    init() { number = ReloadCounted.made.add(1, ordering: .relaxed).newValue }
}

final class ReloadCountedHolder {
    @Injectable var counted: ReloadCounted
    @Injectable var label: String
}

private func greetingScript(_ version: String) -> String {
    """
    bm.initializer { type = "String", container = "ReloadGreeter", init = function() return "hello \(version)" end }
    bm.hook { container = "ReloadGreeter", property = "greeting", fn = function(_, value) hooked = value end }
    bm.preference { container = "ReloadGreeter", property = "volume", default = \(version == "v1" ? 3 : 7) }
    bm.partial { type = "ReloadBadge", init = function() return { text = "badge \(version)" } end }
    bm.class("Note", { text = bm.spell.lazy("String") })
    """
}

private func reloadHost(_ folder: ScriptFolder, limits: LuaLimits = .none) throws -> ScriptHost {
    try ScriptHost(options: .init(
        scriptsDirectory: folder.path, limits: limits, registry: Registry(), preferences: InMemoryPreferenceStore()))
}

@Suite("Live reload: ScriptHost.reload()", .serialized)
struct ScriptReloadTests {
    @Test func aReloadReplacesEverythingTheScriptsMadeAndKeepsSwiftRegistrations() throws {
        let folder = try ScriptFolder(["10-greeting.lua": greetingScript("v1")])
        let host = try reloadHost(folder)
        defer { host.unload() }
        let registry = host.registry
        let swift = registry.register(ReloadSwiftService.self) { _ in ReloadSwiftService() }
        try host.loadStartupScripts()
        let before = Registry.withCurrent(registry) { ReloadGreeter() }
        #expect(try before.$greeting.value() == "hello v1")
        #expect(try before.$volume.get() == 3)
        #expect(try before.$badge.value() == ReloadBadge(text: "badge v1"))
        let countBefore = registry.entries.count
        let oldState = WeakLuaState(host.state)

        try folder.write("10-greeting.lua", greetingScript("v2"))
        let report = try host.reload()

        #expect(report.changedFiles == [folder.file("10-greeting.lua")])
        #expect(report.added.isEmpty && report.removed.isEmpty)
        #expect(Set(report.replaced.map(\.kind)) == [.initializer, .hook, .preferenceOverride, .partialTemplate])
        #expect(registry.entries.count == countBefore, "the registry grew: \(registry.entries)")
        #expect(registry.entries.contains { $0.handle == swift }, "a Swift registration was touched")
        let after = Registry.withCurrent(registry) { ReloadGreeter() }
        #expect(try after.$greeting.value() == "hello v2")
        #expect(try after.$volume.get() == 7)
        #expect(try after.$badge.value() == ReloadBadge(text: "badge v2"))
        #expect((try? after.$fromSwift.value()) != nil)
        // The value injected before stays.
        #expect(try before.$greeting.value() == "hello v1")
        // Hooks and classes are the new state's.
        #expect(try host.lua("return hooked") == [.string("hello v2")])
        #expect(host.luaClasses["Note"]?.source == folder.file("10-greeting.lua") + ":5")
        ScriptHost.drainReleases()
        #expect(!oldState.isAlive, "the old Lua state outlived the reload")
    }

    @Test func aFailedReloadChangesNothingAndListsEveryFailingFile() throws {
        let folder = try ScriptFolder([
            "10-a.lua": #"bm.initializer { type = "String", container = "ReloadGreeter", init = function() return "a1" end }"#,
            "20-b.lua": "x = 1\n",
            "30-c.lua": "y = 2\n",
        ])
        let host = try reloadHost(folder)
        defer { host.unload() }
        try host.loadStartupScripts()
        let handles = host.registry.entries.map(\.handle)
        let state = host.state
        let log = ReloadLog(host)

        try folder.write("10-a.lua", #"bm.initializer { type = "String", container = "ReloadGreeter", init = function() return "a2" end }"#)
        try folder.write("20-b.lua", "x = = 1\n")                          // syntax error
        try folder.write("30-c.lua", "\n\nbm.initializer { type = \"T\", init = print, scop = 1 }\n")  // unknown field
        let error = try #require(throws: ScriptLoadError.self) { try host.reload() }
        let messages = error.failures.map(\.message)
        #expect(messages.count == 2, "\(messages)")
        #expect(messages.first?.hasPrefix(folder.file("20-b.lua") + ":1:") == true)
        #expect(messages.last?.hasPrefix(folder.file("30-c.lua") + ":3:") == true)
        #expect(messages.last?.contains("scop") == true)
        #expect(Set(error.changedFiles) == Set(["10-a.lua", "20-b.lua", "30-c.lua"].map(folder.file)))
        #expect(host.registry.entries.map(\.handle) == handles)
        #expect(host.state === state)
        #expect(try Registry.withCurrent(host.registry) { ReloadGreeter() }.$greeting.value() == "a1")
        #expect(log.failures.count == 1)

        // The next good reload applies (and reports the changes against the wiring in force).
        try folder.write("20-b.lua", "x = 1\n")
        try folder.write("30-c.lua", "y = 2\n")
        let report = try host.reload()
        #expect(report.changedFiles == [folder.file("10-a.lua")])
        #expect(try Registry.withCurrent(host.registry) { ReloadGreeter() }.$greeting.value() == "a2")
    }

    @Test func aScriptThatRaisesOrRunsPastItsLimitsFailsTheReload() throws {
        let folder = try ScriptFolder(["10-a.lua": #"bm.initializer { type = "String", init = function() return "ok" end }"#])
        let host = try reloadHost(folder, limits: LuaLimits(maxInstructions: 100_000))
        defer { host.unload() }
        try host.loadStartupScripts()
        let handles = host.registry.entries.map(\.handle)
        for broken in ["error('nope')", "while true do end", "local t = {} for i = 1, 1e9 do t[i] = i end"] {
            try folder.write("10-a.lua", #"bm.initializer { type = "String", init = function() return "new" end }"# + "\n" + broken)
            do {
                try host.reload()
                Issue.record("a reload with \(broken) succeeded")
            } catch {
                #expect(error.failures.first?.message.hasPrefix(folder.file("10-a.lua") + ":2:") == true, "\(error)")
            }
            #expect(host.registry.entries.map(\.handle) == handles)
        }
    }

    @Test func anUnchangedSingletonKeepsItsValueAndAChangedOneIsMadeAnew() throws {
        let folder = try ScriptFolder([
            "10-counted.lua": #"bm.singleton { type = "ReloadCounted", init = function() return ReloadCounted.new() end }"#,
            "20-label.lua": #"bm.singleton { type = "String", init = function() return "label 1" end }"#,
        ])
        let host = try reloadHost(folder)
        defer { host.unload() }
        host.expose(LuaExposedType(ReloadCounted.self).constructor(arguments: []) { _ in ReloadCounted() })
        try host.loadStartupScripts()
        let first = Registry.withCurrent(host.registry) { ReloadCountedHolder() }
        let counted = try first.$counted.value()
        #expect(try first.$label.value() == "label 1")

        try folder.write("20-label.lua", #"bm.singleton { type = "String", init = function() return "label 2" end }"#)
        let report = try host.reload()
        #expect(report.unchangedCount == 1)
        #expect(report.replaced.map(\.kind) == [.singleton])
        let second = Registry.withCurrent(host.registry) { ReloadCountedHolder() }
        #expect(try second.$counted.value() === counted, "an unchanged singleton was made anew")
        #expect(try second.$label.value() == "label 2")

        try folder.write("10-counted.lua", "-- changed\n" + #"bm.singleton { type = "ReloadCounted", init = function() return ReloadCounted.new() end }"#)
        try host.reload()
        let third = Registry.withCurrent(host.registry) { ReloadCountedHolder() }
        #expect(try third.$counted.value() !== counted, "a changed singleton kept its value")
    }

    @Test func exposedTypesAndGlobalsCarryOverToTheNewState() throws {
        let folder = try ScriptFolder(["10-a.lua": #"bm.initializer { type = "String", init = function() return config.name .. tostring(ReloadCounted ~= nil) end }"#])
        let host = try reloadHost(folder)
        defer { host.unload() }
        host.expose(LuaExposedType(ReloadCounted.self).constructor(arguments: []) { _ in ReloadCounted() })
        host.setGlobal("config", ["name": "app"])
        try host.loadStartupScripts()
        try host.reload()
        #expect(try Registry.withCurrent(host.registry) { ReloadCountedHolder() }.$label.value() == "apptrue")
    }

    @Test func reloadLoadsTheFilesGivenToLoadAgain() throws {
        let folder = try ScriptFolder(["a.lua": #"bm.initializer { type = "String", init = function() return "1" end }"#, "b.lua": "unused = true"])
        let host = try reloadHost(folder)
        defer { host.unload() }
        try host.load(files: [folder.file("a.lua")])
        try folder.write("a.lua", #"bm.initializer { type = "String", init = function() return "2" end }"#)
        try folder.write("b.lua", "error('b is not a startup file here')")
        let report = try host.reload()
        #expect(report.changedFiles == [folder.file("a.lua")])
        #expect(try Registry.withCurrent(host.registry) { ReloadCountedHolder() }.$label.value() == "2")
    }

    @Test func reloadLoadsTheDirectoryAndTheFilesGivenBesides() throws {
        let folder = try ScriptFolder([
            "10-a.lua": #"bm.initializer { type = "String", init = function() return "dir" end }"#,
            "extra/b.lua": #"bm.hook { property = "label", fn = function() end }"#,
        ])
        let host = try reloadHost(folder)
        defer { host.unload() }
        try host.loadStartupScripts()
        try host.load(files: [folder.file("extra/b.lua")])
        try folder.write("extra/b.lua", #"bm.hook { property = "counted", fn = function() end }"#)
        let report = try host.reload()
        #expect(report.changedFiles == [folder.file("extra/b.lua")])
        #expect(Set(host.registry.entries.map(\.kind)) == [.initializer, .hook, .partialTemplate])
        #expect(host.registry.entries.contains { $0.property == "counted" })
    }

    @Test func bothCallbacksHearOfSuccessAndFailure() throws {
        let folder = try ScriptFolder(["10-a.lua": """
            bm.initializer { type = "String", init = function() return "1" end }
            bm.on_reload(function(changes)
              heard = { ok = changes.ok, files = #changes.files, replaced = #changes.replaced,
                        added = #changes.added, removed = #changes.removed, error = changes.errors[1] }
            end)
            """])
        let host = try reloadHost(folder)
        defer { host.unload() }
        let log = ReloadLog(host)
        try host.loadStartupScripts()
        try folder.write("10-a.lua", try String(contentsOfFile: folder.file("10-a.lua"), encoding: .utf8)
            + "\nbm.hook { property = \"x\", fn = function() end }\n")
        try host.reload()
        // The new state's callback ran.
        #expect(try host.lua("return heard.ok, heard.files, heard.replaced, heard.added, heard.removed")
                == [.boolean(true), .integer(1), .integer(1), .integer(1), .integer(0)])
        #expect(log.successes.first?.added.map(\.kind) == [.hook])

        try folder.write("20-bad.lua", "\nerror('broken')\n")
        #expect(throws: ScriptLoadError.self) { try host.reload() }
        // After a failure, the callback of the wiring in force hears of it.
        #expect(try host.lua("return heard.ok, heard.error")
                == [.boolean(false), .string(folder.file("20-bad.lua") + ":2: broken")])
        #expect(log.failures.first?.failures.first?.message == folder.file("20-bad.lua") + ":2: broken")
        #expect(log.count == 2)
    }

    @Test func aFailedReloadIsLoggedWithEveryPosition() throws {
        let folder = try ScriptFolder(["10-a.lua": "x = 1", "20-b.lua": "y = 1"])
        let host = try reloadHost(folder)
        defer { host.unload() }
        let captured = CapturedLog()
        host.setReloadLogger(captured.logger(level: .trace))
        try host.loadStartupScripts()
        try folder.write("10-a.lua", "x = = 1")
        try folder.write("20-b.lua", "\nerror('b')")
        _ = try? host.reload()
        let logged = captured.errors.joined(separator: "\n")
        #expect(logged.contains(folder.file("10-a.lua") + ":1:"))
        #expect(logged.contains(folder.file("20-b.lua") + ":2: b"))
    }

    @Test func aFailingCallbackIsLoggedAndTheOthersStillRun() throws {
        let folder = try ScriptFolder(["10-a.lua": """
            bm.on_reload(function() error("first fails") end)
            bm.on_reload(function() second = true end)
            """])
        let host = try reloadHost(folder)
        defer { host.unload() }
        let captured = CapturedLog()
        host.setReloadLogger(captured.logger(level: .trace))
        try host.loadStartupScripts()
        try host.reload()
        #expect(try host.lua("return second") == [.boolean(true)])
        #expect(captured.errors.contains {
            $0.hasPrefix(folder.file("10-a.lua") + ":1: first fails") && $0.contains("registered at \(folder.file("10-a.lua")):1")
        }, "\(captured.messages)")
    }

    @Test(arguments: [
        ("bm.on_reload(42)", "test.lua:1: bm.on_reload: argument #1 must be a function(changes), got number"),
        ("bm.on_reload()", "test.lua:1: bm.on_reload: argument #1 must be a function(changes), got nil"),
        ("bm.on_reload(setmetatable({}, { __call = print }))", "test.lua:1: bm.on_reload: argument #1 must be a function(changes), got table"),
        ("for i = 1, 101 do bm.on_reload(print) end", "test.lua:1: bm.on_reload: at most 100 callbacks can be registered"),
    ])
    func bmOnReloadRefusesWhatIsNotAFunction(code: String, expected: String) throws {
        let host = try makeHost()
        #expect(host.failure(code) == expected)
    }

    @Test func aFileThatFailsToLoadLeavesNoCallbackBehind() throws {
        let folder = try ScriptFolder([
            "10-a.lua": "bm.on_reload(function() heard_a = true end)",
            "20-b.lua": "bm.on_reload(function() heard_b = true end)\nerror('b fails')",
        ])
        let host = try reloadHost(folder)
        defer { host.unload() }
        #expect(throws: ScriptLoadError.self) { try host.loadStartupScripts() }
        #expect(host.module.reloadCallbackCount() == 1)
    }

    /// 200 reloads in a row: every old state is freed, the registry does
    /// not grow, and neither do the Lua states alive.
    @Test func twoHundredReloadsLeaveMemoryFlat() throws {
        let folder = try ScriptFolder([
            "10-a.lua": #"bm.initializer { type = "String", init = function() return require("lib.value") end }"#,
            "lib/value.lua": #"return "v0""#,
            "partials/ReloadBadge.lua": #"return { text = "b" }"#,
        ])
        let host = try reloadHost(folder)
        defer { host.unload() }
        try host.loadStartupScripts()
        let entries = host.registry.entries.count
        var states: [WeakLuaState] = [WeakLuaState(host.state)]
        for round in 1...200 {
            if round % 20 == 0 { try folder.write("lib/value.lua", "return \"v\(round)\"") }
            try host.reload()
            states.append(WeakLuaState(host.state))
            // A resolution on this thread replaces what its lookup cache held.
            _ = try Registry.withCurrent(host.registry) { ReloadCountedHolder() }.$label.value()
        }
        #expect(try Registry.withCurrent(host.registry) { ReloadCountedHolder() }.$label.value() == "v200")
        #expect(host.registry.entries.count == entries)
        #expect(host.registry.diagnostics.isEmpty)
        ScriptHost.drainReleases()
        let alive = states.filter(\.isAlive).count
        #expect(alive == 1, "\(alive) Lua states alive after 200 reloads")
    }
}
