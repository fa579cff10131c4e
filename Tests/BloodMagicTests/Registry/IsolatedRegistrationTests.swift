import BloodMagic
import Synchronization
import Testing
import TestSupport

// Issue 30: registrations isolated to any global actor, not only the main
// actor (`registerIsolated`). Their initializers check they run there
// (`preconditionIsolated` traps otherwise).

@globalActor actor LedgerActor {
    static let shared = LedgerActor()
}

@LedgerActor
private final class Ledger: Sendable {
    let attempt: Int
    init(attempt: Int) {
        LedgerActor.preconditionIsolated()
        self.attempt = attempt
    }
}

private final class LedgerScreen {
    @Injectable var ledger: Ledger

    init(_ registry: Registry) {
        _ledger = Injectable(registry: registry)
    }
}

/// Counts the initializer's runs.
private typealias Made = CallCounter

private func ledgerRegistry(scope: SpellScope = .instance, _ made: Made) -> Registry {
    let registry = Registry()
    registry.registerIsolated(Ledger.self, scope: scope) { @LedgerActor in
        LedgerActor.preconditionIsolated()
        return Ledger(attempt: made.increment())
    }
    return registry
}

/// A synchronous read of the screen's ledger, on the ledger's actor, with
/// no `assumeIsolated`.
@LedgerActor private func readOnLedgerActor(_ registry: Registry) -> Int {
    LedgerScreen(registry).ledger.attempt
}

/// A turn on the ledger's actor (after the jobs enqueued on it before).
@LedgerActor private func passThroughLedgerActor() {}

@Suite struct IsolatedRegistrationTests {
    @Test func aSynchronousReadOnTheActorRunsTheInitializerInPlace() async {
        let made = Made()
        let registry = ledgerRegistry(made)
        #expect(await readOnLedgerActor(registry) == 1)
        #expect(await readOnLedgerActor(registry) == 2)
    }

    @Test func aSynchronousReadElsewhereIsAClearErrorAndRunsNothing() async throws {
        let made = Made()
        let registry = ledgerRegistry(made)
        let thrown = await Task.detached { () -> SpellError? in
            do {
                _ = try LedgerScreen(registry).$ledger.value()
                return nil
            } catch {
                return error as? SpellError
            }
        }.value
        guard case let .isolatedInitializer(property, container, type, actor, _) = thrown else {
            Issue.record("expected isolatedInitializer, got \(String(describing: thrown))")
            return
        }
        #expect([property, container, type, actor] == ["ledger", "LedgerScreen", "Ledger", "LedgerActor"])
        #expect(thrown?.description.contains("is isolated to LedgerActor") == true)
        // The ask left nothing behind that runs the initializer later on the actor.
        await passThroughLedgerActor()
        try await Task.sleep(for: .milliseconds(20))
        #expect(made.value == 0)
    }

    @Test func anAwaitedReadElsewhereHopsToTheActor() async throws {
        let made = Made()
        let registry = ledgerRegistry(made)
        let attempts = try await Task.detached {
            let resolved = try await registry.resolve(Ledger.self)
            let property = try await LedgerScreen(registry).$ledger.asyncValue()
            return [resolved.attempt, property.attempt]
        }.value
        #expect(attempts == [1, 2])
    }

    @Test func eightTasksOnAndOffTheActorMakeAnIsolatedSingletonOnce() async throws {
        let made = Made()
        let registry = ledgerRegistry(scope: .singleton, made)
        let attempts = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                group.addTask {
                    // Half read synchronously on the actor, half await from elsewhere.
                    if index.isMultiple(of: 2) { return await readOnLedgerActor(registry) }
                    return try await registry.resolve(Ledger.self).attempt
                }
            }
            return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        #expect(attempts == [1])
        #expect(made.value == 1)
        // Made: a synchronous read anywhere sees it.
        #expect(await Task.detached { LedgerScreen(registry).ledger.attempt }.value == 1)
    }

    @Test func preparedIsolatedSingletonsAreReadSynchronouslyAnywhere() async throws {
        let made = Made()
        let registry = ledgerRegistry(scope: .singleton, made)
        try await Task.detached { try await registry.prepare() }.value
        #expect(await Task.detached { LedgerScreen(registry).ledger.attempt }.value == 1)
        #expect(made.value == 1)
    }

    @Test func entriesAndExplainNameTheActor() {
        let registry = ledgerRegistry(Made())
        #expect(registry.entries.first?.isolation == "LedgerActor")
        #expect(registry.entries.first?.isAsync == false)
        #expect(registry.explain(SpellTypeKey(Ledger.self), in: nil).description.contains("on LedgerActor"))
    }

    /// An `async` initializer isolated to a global actor other than the
    /// main actor runs there however it is read.
    @Test func anAsyncInitializerIsolatedToAGlobalActorRunsThere() async throws {
        let registry = Registry()
        registry.registerAsync(Ledger.self) { @LedgerActor in
            LedgerActor.preconditionIsolated()
            await Task.yield()
            LedgerActor.preconditionIsolated()
            return Ledger(attempt: 7)
        }
        let ledger = try await Task.detached { try await registry.resolve(Ledger.self) }.value
        #expect(ledger.attempt == 7)
        #expect(registry.entries.first?.isolation == "LedgerActor")
        #expect(registry.entries.first?.isAsync == true)
    }

    /// A closure isolated to no actor is a mistake the registration stops at once.
    @Test func aClosureIsolatedToNoActorIsRefused() async {
        await #expect(processExitsWith: .failure) {
            Registry().registerIsolated(Int.self) { 1 }
        }
    }

    /// `registerIsolated` with a `@MainActor` closure runs in place on
    /// the main actor too (as `registerOnMainActor` does).
    @MainActor @Test func aMainActorClosureRunsInPlaceOnTheMainActor() {
        let registry = Registry()
        registry.registerIsolated(Badge.self) { @MainActor in
            MainActor.preconditionIsolated()
            return Badge()
        }
        #expect(registry.entries.first?.isolation == "MainActor")
        #expect((try? BadgeScreen(registry).$badge.value()) != nil)
    }
}

@MainActor
private final class Badge: Sendable {}

private final class BadgeScreen {
    @Injectable var badge: Badge

    init(_ registry: Registry) {
        _badge = Injectable(registry: registry)
    }
}
