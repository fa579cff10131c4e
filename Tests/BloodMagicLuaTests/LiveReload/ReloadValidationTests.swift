@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 27: a reload never leaves a server worse off. Before it commits, a
// reload resolves what the app declared through the new wiring, and refuses
// wiring that would fail (wrong type, nil for a non-optional, a misspelled
// type name, nothing to serve a property), at the script's line; the old
// wiring stays in force, the refusal is logged and told to `onReload`.

/// A service the scripts make.
final class ValidatedClock {
    let zone: String
    init(zone: String) { self.zone = zone }
}

/// A container the app declares: every property must resolve.
final class ValidatedController: DefaultConstructible {
    @Injectable var clock: ValidatedClock
    @Injectable var greeting: String
    init() {}
}

/// A container declared by instance, with a @Lazy nothing else can make.
final class ValidatedScreen {
    @Lazy var clock: ValidatedClock
    let title: String
    init(title: String) { self.title = title }
}

/// Reads a declared property on another thread while a validation runs,
/// and counts hooks.
final class ValidationProbe: LuaExposable, Sendable {
    let registry: Registry
    let seen = Lock<[String]>([])
    let hooks = Atomic<Int>(0)

    init(registry: Registry) { self.registry = registry }

    /// The first time (the validation), reads on another thread and waits;
    /// later (the state is in force then, and its gate taken), what it read.
    func greetingOnAnotherThread() -> String {
        if let first = seen.withLock({ $0.first }) { return first }
        let done = DispatchSemaphore(value: 0)
        let registry = registry
        Thread.detachNewThread { [self] in
            let read = (try? Registry.withCurrent(registry) { ValidatedController() }.$greeting.value()) ?? "error"
            seen.withLock { $0.append(read) }
            done.signal()
        }
        done.wait()
        return seen.withLock { $0.last ?? "" }
    }
}

private func clockScript(_ body: String) -> String {
    """
    bm.initializer { type = "ValidatedClock", init = function()
      \(body)
    end }
    """
}

private let goodClock = clockScript(#"return ValidatedClock.new("UTC")"#)
private let greetingScript = #"bm.initializer { type = "String", init = function() return "hello" end }"#

/// The line the controller is declared at (as `#line` would give it).
private let declarationLine = 7

/// A host on `folder` that exposes the clock and declares the controller.
private func validatingHost(_ folder: ScriptFolder, watch: ScriptWatchMode? = nil) throws -> ScriptHost {
    let host = try ScriptHost(options: .init(
        scriptsDirectory: folder.path, registry: Registry(), preferences: InMemoryPreferenceStore(), watch: watch))
    host.expose(LuaExposedType(ValidatedClock.self)
        .constructor(arguments: ["zone"]) { args in ValidatedClock(zone: try args.get(1)) }
        .property("zone", get: { $0.zone }))
    host.declare(ValidatedController.self, line: declarationLine)
    return host
}

private func zone(_ host: ScriptHost) -> String? {
    try? Registry.withCurrent(host.registry) { ValidatedController() }.$clock.value().zone
}

@Suite("Live reload: a reload is validated before it commits", .serialized)
struct ReloadValidationTests {
    @Test(arguments: [
        (#"return "a string""#, 1, "returned a string (ValidatedClock is neither an exposed class, LuaReadable nor Decodable), expected ValidatedClock"),
        ("return nil", 1, "returned nil, but the property is a non-optional ValidatedClock"),
        ("error(\"no clock today\")", 2, "no clock today (resolving ValidatedController.clock"),
        ("return 42", 1, "returned an integer (ValidatedClock is neither an exposed class, LuaReadable nor Decodable), expected ValidatedClock"),
    ])
    func aReloadWhoseInitializerWouldFailIsRefusedAtItsLine(body: String, line: Int, reason: String) throws {
        let folder = try ScriptFolder(["10-clock.lua": goodClock, "20-greeting.lua": greetingScript])
        let host = try validatingHost(folder)
        defer { host.unload() }
        let captured = CapturedLog()
        host.setReloadLogger(captured.logger(level: .trace))
        let log = ReloadLog(host)
        try host.loadStartupScripts()
        let entries = host.registry.entries.map(\.handle)

        try folder.write("10-clock.lua", clockScript(body))
        do {
            try host.reload()
            Issue.record("a reload whose initializer returns \(body) committed")
        } catch {
            let message = try #require(error.failures.first?.message)
            #expect(message.hasPrefix(folder.file("10-clock.lua") + ":"), "\(error)")
            #expect(error.failures.first?.line == line, "\(error)")
            #expect(message.contains(reason), "\(error)")
            #expect(error.changedFiles == [folder.file("10-clock.lua")])
        }
        // The old wiring stays in force, untouched.
        #expect(zone(host) == "UTC")
        #expect(host.registry.entries.map(\.handle) == entries)
        // Logged and told, as a syntax error is.
        #expect(log.failures.count == 1)
        #expect(captured.errors.contains { $0.contains(folder.file("10-clock.lua") + ":") && $0.contains("previous wiring stays") },
                "\(captured.messages)")
        // Fixed, it reloads.
        try folder.write("10-clock.lua", clockScript(#"return ValidatedClock.new("CET")"#))
        try host.reload()
        #expect(zone(host) == "CET")
    }

    @Test func aMisspelledTypeNameIsRefusedAtTheMisspelledRegistration() throws {
        let folder = try ScriptFolder(["10-clock.lua": goodClock, "20-greeting.lua": greetingScript])
        let host = try validatingHost(folder)
        defer { host.unload() }
        try host.loadStartupScripts()
        try folder.write("10-clock.lua", "\n" + goodClock.replacingOccurrences(of: #""ValidatedClock""#, with: #""ValidatedClok""#))
        do {
            try host.reload()
            Issue.record("a reload misspelling the type name committed")
        } catch {
            let message = error.failures.map(\.message).joined(separator: "\n")
            #expect(message.hasPrefix(folder.file("10-clock.lua") + ":2: ValidatedController.clock: no initializer for ValidatedClock"),
                    "\(error)")
            #expect(message.contains("(closest: ValidatedClok, registered here)"), "\(error)")
        }
        #expect(zone(host) == "UTC")
    }

    @Test func aDeletedInitializerForADeclaredPropertyIsRefused() throws {
        let folder = try ScriptFolder(["10-clock.lua": goodClock, "20-greeting.lua": greetingScript])
        let host = try validatingHost(folder)
        defer { host.unload() }
        host.declare(instance: ValidatedScreen(title: "preview"))
        try host.loadStartupScripts()
        try folder.write("10-clock.lua", "-- the clock went away\n")
        do {
            try host.reload()
            Issue.record("a reload leaving a declared property unserved committed")
        } catch {
            let messages = error.failures.map(\.message)
            #expect(messages.contains { $0.contains("ValidatedController.clock: no initializer for ValidatedClock") }, "\(messages)")
            #expect(messages.contains { $0.contains("ValidatedScreen.clock: no initializer for ValidatedClock") && $0.contains("cannot be default-constructed") },
                    "\(messages)")
            // Nothing of the new scripts names the type: at the declarations.
            #expect(messages.allSatisfy { $0.hasPrefix("BloodMagicLuaTests/ReloadValidationTests.swift:") }, "\(messages)")
        }
        #expect(zone(host) == "UTC")
    }

    @Test func theValidationSeesTheNewWiringAndOtherThreadsStillTheOld() throws {
        // The validation's nested resolutions (bm.resolve in an initializer)
        // see the new wiring; a read on another thread meanwhile sees the
        // old one; no hook runs in a validation.
        let folder = try ScriptFolder(["10-clock.lua": goodClock, "20-greeting.lua": greetingScript])
        let host = try validatingHost(folder)
        defer { host.unload() }
        let probe = ValidationProbe(registry: host.registry)
        host.expose(LuaExposedType(ValidationProbe.self)
            .method("greetingElsewhere") { probe, _ in probe.greetingOnAnotherThread() }
            .method("hooked") { probe, _ in probe.hooks.add(1, ordering: .relaxed) })
        host.setGlobal("probe", probe)
        try host.loadStartupScripts()
        try folder.write("10-clock.lua", clockScript("""
            return ValidatedClock.new(bm.resolve("Motto") .. ", elsewhere " .. probe:greetingElsewhere())
            """))
        try folder.write("20-greeting.lua", """
            bm.initializer { type = "String", init = function() return "hi" end }
            bm.initializer { type = "Motto", init = function() return "motto" end }
            bm.hook { container = "ValidatedController", property = "clock", fn = function() probe:hooked() end }
            """)
        try host.reload()
        #expect(probe.seen.withLock { $0 } == ["hello"])   // during the validation: the old wiring
        #expect(probe.hooks.load(ordering: .relaxed) == 0)
        #expect(try Registry.withCurrent(host.registry) { ValidatedController() }.$greeting.value() == "hi")
        #expect(zone(host)?.hasPrefix("motto, elsewhere ") == true, "\(zone(host) ?? "nil")")
        #expect(probe.hooks.load(ordering: .relaxed) == 1)
    }

    @Test func validateFindsAtStartupWhatTheFirstRequestWouldTrapOn() throws {
        let folder = try ScriptFolder(["10-clock.lua": clockScript("return nil"), "20-greeting.lua": greetingScript])
        let host = try validatingHost(folder)
        defer { host.unload() }
        try host.loadStartupScripts()
        do {
            try host.validate()
            Issue.record("validate() found nothing")
        } catch {
            #expect(error.failures.map(\.message) == [
                "\(folder.file("10-clock.lua")):1: ValidatedController.clock: the initializer registered at \(folder.file("10-clock.lua")):1 returned nil, but the property is a non-optional ValidatedClock (return a value, or declare the property optional) (declared at BloodMagicLuaTests/ReloadValidationTests.swift:\(declarationLine))",
            ])
        }
        try folder.write("10-clock.lua", goodClock)
        try host.reload()
        try host.validate()
    }

    @Test(arguments: [ScriptWatchMode.native, .polling(interval: .milliseconds(20))])
    func aWatchedEditThatWouldFailIsRefusedAndTheNextGoodOneApplies(mode: ScriptWatchMode) throws {
        let folder = try ScriptFolder(["10-clock.lua": goodClock, "20-greeting.lua": greetingScript])
        let host = try validatingHost(folder, watch: mode)
        defer { host.unload() }
        let log = ReloadLog(host)
        try host.loadStartupScripts()
        try folder.write("10-clock.lua", clockScript(#"return "not a clock""#))
        #expect(eventually { !log.failures.isEmpty })
        let refused = try #require(log.failures.first)
        #expect(refused.failures.first?.message.hasPrefix(folder.file("10-clock.lua") + ":1:") == true, "\(refused)")
        #expect(zone(host) == "UTC")
        try folder.write("10-clock.lua", clockScript(#"return ValidatedClock.new("fixed")"#))
        #expect(eventually { zone(host) == "fixed" })
        #expect(eventually { log.successes.count == 1 })
    }
}
