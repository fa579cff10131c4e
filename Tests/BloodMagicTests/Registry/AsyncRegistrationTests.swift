@_spi(BloodMagicInternals) import BloodMagic
import Synchronization
import Testing

// Issue 30, "Async and isolated initializers": `registerAsync`, `await`
// resolutions made once per scope, synchronous reads before and after
// `prepare()`, cancellation.

private final class AsyncDatabase: Sendable {
    let attempt: Int
    init(attempt: Int) { self.attempt = attempt }
}

private final class AsyncSettings: Sendable {}

private final class AsyncStore {
    let registry: Registry
    @Injectable var database: AsyncDatabase

    init(_ registry: Registry) {
        self.registry = registry
        _database = Injectable(registry: registry)
    }
}

/// Counts the initializer's runs.
private final class Runs: Sendable {
    let count = Atomic<Int>(0)
    let order = Lock<[String]>([])

    /// Counts a run and returns its number (1 for the first).
    func next() -> Int { count.wrappingAdd(1, ordering: .relaxed).newValue }
    var value: Int { count.load(ordering: .relaxed) }
    func note(_ name: String) { order.withLock { $0.append(name) } }
}

/// Waits (up to about 5 s) until `condition` holds.
private func eventually(_ condition: () -> Bool) async {
    for _ in 0..<1000 where !condition() {
        try? await Task.sleep(for: .milliseconds(5))
    }
}

@Suite struct AsyncRegistrationTests {
    @Test func eightTasksAskingAtOnceMakeTheSingletonOnce() async throws {
        let registry = Registry()
        let runs = Runs()
        registry.registerAsync(AsyncDatabase.self) {
            let attempt = runs.next()
            try await Task.sleep(for: .milliseconds(50))
            return AsyncDatabase(attempt: attempt)
        }
        let made = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<8 {
                group.addTask { ObjectIdentifier(try await registry.resolve(AsyncDatabase.self)) }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(runs.value == 1)
        #expect(made.count == 1)
        // Made: read again without waiting, and synchronously.
        let again = try await registry.resolve(AsyncDatabase.self)
        #expect(made == [ObjectIdentifier(again)])
        #expect(ObjectIdentifier(AsyncStore(registry).database) == ObjectIdentifier(again))
    }

    @Test func aSynchronousReadBeforeItIsMadeSaysSoAndNamesThePropertyAndContainer() {
        let registry = Registry()
        registry.registerAsync(AsyncDatabase.self) { AsyncDatabase(attempt: 1) }
        let store = AsyncStore(registry)
        #expect {
            try store.$database.value()
        } throws: { error in
            guard case let .asyncValueNotReady(property, container, type, source) = error as? SpellError else { return false }
            return property == "database" && container == "AsyncStore" && type == "AsyncDatabase"
                && source.hasPrefix("BloodMagicTests/AsyncRegistrationTests.swift:")
        }
        expectSpellError(containing: "AsyncStore.database: AsyncDatabase is registered with an async initializer") {
            try registry.resolve(AsyncDatabase.self, for: store, property: "database")
        }
        expectSpellError(containing: "registry.prepare()") { try store.$database.value() }
    }

    @Test func asyncValueOfAPropertyWaitsForItThenSynchronousReadsWork() async throws {
        let registry = Registry()
        let runs = Runs()
        registry.registerAsync(AsyncDatabase.self) { AsyncDatabase(attempt: runs.next()) }
        let store = AsyncStore(registry)
        let database = try await store.$database.asyncValue()
        #expect(store.$database.isResolved)
        #expect(database === store.database)
        #expect(database === AsyncStore(registry).database)
        #expect(runs.value == 1)
    }

    @Test func prepareMakesEveryAsyncSingletonInDependencyOrder() async throws {
        let registry = Registry()
        let runs = Runs()
        // The database awaits the settings; the cache reads the settings
        // synchronously, so it can only be made after them.
        registry.registerAsync(AsyncCache.self) {
            runs.note("cache")
            return AsyncCache(settings: try registry.resolveValue(AsyncSettings.self))
        }
        registry.registerAsync(AsyncDatabase.self) {
            _ = try await registry.resolve(AsyncSettings.self)
            runs.note("database")
            return AsyncDatabase(attempt: runs.next())
        }
        registry.registerAsync(AsyncSettings.self) {
            runs.note("settings")
            return AsyncSettings()
        }
        try await registry.prepare()
        let made = runs.order.withLock { $0 }
        #expect(made.filter { $0 != "cache" } == ["settings", "database"])
        #expect(made.last == "cache")
        // Synchronous reads just work now.
        #expect(AsyncStore(registry).database.attempt == 1)
        _ = try registry.resolveValue(AsyncCache.self)
        try await registry.prepare()
        #expect(runs.value == 1)
    }

    @Test func prepareThrowsWhatMakingTheOthersDidNotCure() async {
        let registry = Registry()
        registry.registerAsync(AsyncCache.self) { AsyncCache(settings: try registry.resolveValue(AsyncSettings.self)) }
        registry.register(AsyncSettings.self) { _ in
            _ = try registry.resolveValue(AsyncCache.self)
            return AsyncSettings()
        }
        await #expect {
            try await registry.prepare()
        } throws: { error in
            guard case .asyncValueNotReady(_, _, let type, _) = error as? SpellError else { return false }
            return type == "AsyncCache"
        }
    }

    @Test func aCancelledMakerLeavesNoHalfMadeSingletonAndALaterAskMakesItAfresh() async throws {
        let registry = Registry()
        let runs = Runs()
        registry.registerAsync(AsyncDatabase.self) {
            let attempt = runs.next()
            if attempt == 1 { try await Task.sleep(for: .seconds(30)) }
            return AsyncDatabase(attempt: attempt)
        }
        let first = Task { try await registry.resolve(AsyncDatabase.self) }
        await eventually { runs.value == 1 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        // Nothing was kept: a synchronous read still finds it not made.
        expectSpellError(containing: "not made yet") { try AsyncStore(registry).$database.value() }
        let later = try await registry.resolve(AsyncDatabase.self)
        #expect(later.attempt == 2)
    }

    /// The making task is cancelled while another waits: the waiter is not
    /// failed, it makes the value afresh.
    @Test func waitersAreNotPoisonedByTheMakersCancellation() async throws {
        let registry = Registry()
        let runs = Runs()
        registry.registerAsync(AsyncDatabase.self) {
            let attempt = runs.next()
            if attempt == 1 { try await Task.sleep(for: .seconds(30)) }
            return AsyncDatabase(attempt: attempt)
        }
        let maker = Task { try await registry.resolve(AsyncDatabase.self) }
        await eventually { runs.value == 1 }
        let waiter = Task { try await registry.resolve(AsyncDatabase.self) }
        try await Task.sleep(for: .milliseconds(50))
        maker.cancel()
        await #expect(throws: CancellationError.self) { try await maker.value }
        #expect(try await waiter.value.attempt == 2)
        #expect(runs.value == 2)
    }

    /// A waiting task that is cancelled stops waiting at once; the making
    /// goes on for the others.
    @Test func aCancelledWaiterStopsWaitingWhileTheMakingGoesOn() async throws {
        let registry = Registry()
        let runs = Runs()
        let release = Atomic<Bool>(false)
        registry.registerAsync(AsyncDatabase.self) {
            let attempt = runs.next()
            while !release.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
            return AsyncDatabase(attempt: attempt)
        }
        let maker = Task { try await registry.resolve(AsyncDatabase.self) }
        await eventually { runs.value == 1 }
        let waiter = Task { try await registry.resolve(AsyncDatabase.self) }
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        release.store(true, ordering: .releasing)
        #expect(try await maker.value.attempt == 1)
        #expect(runs.value == 1)
    }

    @Test func anInitializerThatNeedsItsOwnValueIsACycle() async {
        let registry = Registry()
        registry.registerAsync(AsyncDatabase.self) {
            _ = try await registry.resolve(AsyncSettings.self)
            return AsyncDatabase(attempt: 1)
        }
        registry.registerAsync(AsyncSettings.self) {
            _ = try await registry.resolve(AsyncDatabase.self)
            return AsyncSettings()
        }
        await #expect {
            try await registry.resolve(AsyncDatabase.self)
        } throws: { error in
            guard case .dependencyCycle(let chain) = error as? SpellError else { return false }
            return chain == ["AsyncDatabase (singleton)", "AsyncSettings (singleton)", "AsyncDatabase (singleton)"]
        }
    }

    @Test func anInstanceScopedAsyncValueIsMadeOncePerPropertyAndAnewPerResolution() async throws {
        let registry = Registry()
        let runs = Runs()
        registry.registerAsync(AsyncDatabase.self, scope: .instance) {
            let attempt = runs.next()
            try await Task.sleep(for: .milliseconds(30))
            return AsyncDatabase(attempt: attempt)
        }
        let store = AsyncStore(registry)
        // The tasks share the container, as a view's tasks would.
        let shared = UncheckedBox(value: store)
        let made = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { try await shared.value.$database.asyncValue().attempt }
            }
            return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        #expect(made.count == 1)
        #expect(runs.value == 1)
        #expect(store.database.attempt == made.first)
        let one = try await registry.resolve(AsyncDatabase.self)
        let other = try await registry.resolve(AsyncDatabase.self)
        #expect(one !== other)
        // Never ready for a synchronous read of another container.
        expectSpellError(containing: "not made yet") { try AsyncStore(registry).$database.value() }
    }

    @Test func entriesSayARegistrationIsAsync() {
        let registry = Registry()
        registry.registerAsync(AsyncDatabase.self) { AsyncDatabase(attempt: 1) }
        registry.register(AsyncSettings.self) { _ in AsyncSettings() }
        let entries = registry.entries
        #expect(entries.map(\.isAsync) == [true, false])
        #expect(entries[0].description.contains("(singleton) async at"))
        #expect(entries[0].isolation == nil)
        let explanation = registry.explain(SpellTypeKey(AsyncDatabase.self), in: nil).description
        #expect(explanation.contains("* singleton (async) AsyncDatabase in any container"), "\(explanation)")
        #expect(explanation.contains("wins: the singleton (async) registered at"), "\(explanation)")
    }

    @Test func aSynchronousRegistrationIsResolvedWithAwaitToo() async throws {
        let registry = Registry()
        registry.register(AsyncSettings.self, scope: .singleton) { _ in AsyncSettings() }
        let settings = try await registry.resolve(AsyncSettings.self)
        #expect(settings === (try await registry.resolve(AsyncSettings.self)))
        await #expect(throws: SpellError.self) { try await registry.resolve(AsyncCache.self) }
    }
}

private final class AsyncCache: Sendable {
    let settings: AsyncSettings
    init(settings: AsyncSettings) { self.settings = settings }
}
