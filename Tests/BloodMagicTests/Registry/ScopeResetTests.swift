@testable import BloodMagic
import Testing

// Issue 29, custom scopes: `reset(scope:)` gives each registration of the
// scope a new, empty slot and changes nothing else about it (its name, its
// decorators, its forwardings).

private protocol SessionService: AnyObject {}
private final class SessionClient: SessionService, Sendable {
    let serial: Int
    let decorated: Bool
    init(serial: Int, decorated: Bool = false) {
        self.serial = serial
        self.decorated = decorated
    }
}

extension SpellName<SessionClient> {
    fileprivate static var session: Self { "session" }
}

/// A sender for resolutions.
private final class SessionUser {}

@Suite struct ScopeResetTests {
    private let session = SpellScope.custom("session")

    /// A named registration of the scope stays named: after the reset, the
    /// lookup of its name finds it and gets a new value.
    @Test func aNamedRegistrationKeepsItsNameAcrossAReset() throws {
        let registry = Registry()
        let made = CallCounter()
        registry.register(SessionClient.self, named: .session, scope: session) { _ in SessionClient(serial: made.increment()) }
        let user = SessionUser()
        let first = try registry.resolve(SessionClient.self, named: .session, for: user, property: "client")
        #expect(try registry.resolve(SessionClient.self, named: .session, for: user, property: "client") === first)
        #expect(registry.reset(scope: session) == 1)
        let after = try registry.resolve(SessionClient.self, named: .session, for: user, property: "client")
        #expect(after.serial == 2)
        #expect(registry.entries.map(\.name) == ["session"])
    }

    /// A decorated registration of the scope is still decorated after the
    /// reset: its new value passes through the decorator once.
    @Test func aDecoratedRegistrationStaysDecoratedAcrossAReset() throws {
        let registry = Registry()
        let made = CallCounter()
        let decorations = CallCounter()
        registry.register(SessionClient.self, scope: session) { _ in SessionClient(serial: made.increment()) }
        registry.decorate(SessionClient.self) { client, _ in
            _ = decorations.increment()
            return SessionClient(serial: client.serial, decorated: true)
        }
        let user = SessionUser()
        let first = try registry.resolve(SessionClient.self, for: user, property: "client")
        #expect(first.decorated)
        #expect(registry.reset(scope: session) == 1)
        let after = try registry.resolve(SessionClient.self, for: user, property: "client")
        #expect(after.decorated && after.serial == 2)
        #expect(try registry.resolve(SessionClient.self, for: user, property: "client") === after)
        #expect(decorations.value == 2)
    }

    /// A forwarding to a registration of the scope serves the new value
    /// after the reset (the same object as the registration's own), is
    /// still listed as a forwarding, and still goes with its registration.
    @Test func aForwardingServesTheNewValueAfterAReset() throws {
        let registry = Registry()
        let made = CallCounter()
        let handle = registry.register(SessionClient.self, scope: session) { _ in SessionClient(serial: made.increment()) }
        #expect(registry.forward((any SessionService).self, to: handle) != nil)
        let user = SessionUser()
        let first = try registry.resolve((any SessionService).self, for: user, property: "service")
        #expect(first === (try registry.resolve(SessionClient.self, for: user, property: "client")))
        #expect(registry.reset(scope: session) == 2)
        let after = try registry.resolve((any SessionService).self, for: user, property: "service")
        #expect(after !== first)
        #expect(after === (try registry.resolve(SessionClient.self, for: user, property: "client")))
        #expect(registry.entries.last?.forwardsTo == handle)
        #expect(registry.unregister(handle))
        #expect(registry.entries.isEmpty)
    }

    /// A reset while a reload's stage is open: a forwarding staged to a
    /// registration of the scope in force serves the new value once the
    /// stage is committed (it used to keep the record the reset replaced,
    /// and so the old value).
    @Test func aStagedForwardingServesTheNewValueAfterAResetAndCommit() throws {
        let registry = Registry()
        let made = CallCounter()
        let handle = registry.register(SessionClient.self, scope: session) { _ in SessionClient(serial: made.increment()) }
        let user = SessionUser()
        let first = try registry.resolve(SessionClient.self, for: user, property: "client")
        let stage = registry.openStage()
        #expect(registry.withStage(stage) { registry.forward((any SessionService).self, to: handle) } != nil)
        #expect(registry.reset(scope: session) == 1)
        #expect(registry.commitStage(stage, replacing: []) != nil)
        let served = try registry.resolve((any SessionService).self, for: user, property: "service")
        let client = try registry.resolve(SessionClient.self, for: user, property: "client")
        #expect(served !== first)
        #expect(served === client && client.serial == 2)
    }

    /// A registration of the scope staged with a value carried over from
    /// the wiring it replaces (`presetSingletons`, at the preview and again
    /// at the commit, as a reload does) starts empty when the scope is reset
    /// before the commit: the reset is not undone by the commit.
    @Test func aStagedPresetValueDoesNotSurviveAReset() throws {
        let registry = Registry()
        let made = CallCounter()
        let old = registry.register(SessionClient.self, scope: session) { _ in SessionClient(serial: made.increment()) }
        let user = SessionUser()
        let first = try registry.resolve(SessionClient.self, for: user, property: "client")
        let stage = registry.openStage()
        let staged = registry.withStage(stage) {
            registry.register(SessionClient.self, scope: session) { _ in SessionClient(serial: made.increment()) }
        }
        // As a reload does: the old values read, preset, then preset again at the commit.
        let carried = registry.madeSingletonValues([old])
        registry.presetSingletons(in: stage, [staged: carried[old]!])
        #expect(registry.reset(scope: session) == 1)
        #expect(registry.commitStage(stage, replacing: [old], presetSingletons: [staged: carried[old]!]) != nil)
        let after = try registry.resolve(SessionClient.self, for: user, property: "client")
        #expect(after !== first && after.serial == 2)
    }

    /// A reset while a stage is open that is then discarded (a reload that
    /// failed): the wiring in force, forwardings and all, serves the new
    /// value, and the stage's forwarding is gone with it.
    @Test func aResetDuringAStageThatIsDiscardedKeepsTheWiringInForceReset() throws {
        let registry = Registry()
        let made = CallCounter()
        let handle = registry.register(SessionClient.self, scope: session) { _ in SessionClient(serial: made.increment()) }
        registry.forward((any SessionService).self, to: handle)
        let user = SessionUser()
        let first = try registry.resolve((any SessionService).self, for: user, property: "service")
        let stage = registry.openStage()
        #expect(registry.withStage(stage) { registry.forward((any SessionService).self, to: handle) } != nil)
        #expect(registry.stagedEntries(stage).count == 1)
        #expect(registry.reset(scope: session) == 2)
        registry.discardStage(stage)
        #expect(registry.commitStage(stage, replacing: []) == nil)
        let served = try registry.resolve((any SessionService).self, for: user, property: "service")
        #expect(served !== first)
        #expect(served === (try registry.resolve(SessionClient.self, for: user, property: "client")))
        #expect(registry.entries.count == 2)
    }
}
