@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization
import Testing
import TestSupport

// Issue 30: a registry layered over another (a test's over the app's)
// answers what it registers and falls through to its base for the rest;
// `withLayeredOverrides` installs one task-locally; `withOverrides`, which
// changes the registry itself, stops two tasks' overlapping uses.

private final class LayerClock: Sendable {
    let label: String
    init(_ label: String) { self.label = label }
}

private final class LayerMailer: Sendable {
    let clock: LayerClock
    init(clock: LayerClock) { self.clock = clock }
}

private final class LayerScreen {
    @Injectable var clock: LayerClock
    @Injectable var mailer: LayerMailer
    @Injectable var manager: RequestManager
    @Injectable var optionalManager: RequestManager?
    @Lazy var lazyManager: RequestManager
}

/// An app's wiring: a clock, a mailer singleton made with the clock.
private func appRegistry(made: Counter? = nil) -> Registry {
    let registry = Registry()
    registry.register(LayerClock.self) { _ in LayerClock("real") }
    registry.register(LayerMailer.self, scope: .singleton) { _ in
        made?.increment()
        return LayerMailer(clock: try LayerScreen().$clock.value())
    }
    registry.register(RequestManager.self) { _ in RequestManager(label: "app") }
    return registry
}

private struct LayerWiringFailure: Error {}

/// A thread-safe count.
private final class Counter: Sendable {
    private let value = Lock(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

@Suite struct RegistryLayerTests {
    @Test func aLayerServesWhatItRegistersAndFallsThroughForTheRest() throws {
        let app = appRegistry()
        let layer = Registry(layeredOver: app)
        layer.register(LayerClock.self) { _ in LayerClock("fake") }
        let (clock, manager) = try Registry.withCurrent(layer) {
            let screen = LayerScreen()
            return (try screen.$clock.value().label, try screen.$manager.value().label)
        }
        #expect(clock == "fake")
        #expect(manager == "app")
        // The base is unchanged.
        #expect(try Registry.withCurrent(app) { try LayerScreen().$clock.value().label } == "real")
        #expect(layer.base === app)
        #expect(layer.entries.count == 1)
    }

    @Test func aLayerSeesWhatItsBaseRegistersLater() throws {
        let app = Registry()
        let layer = Registry(layeredOver: app)
        func read() throws -> String? {
            try Registry.withCurrent(layer) { try LayerScreen().$optionalManager.value()?.label }
        }
        // A miss first, cached by the layer (on this thread and under its lock).
        #expect(try read() == nil)
        app.register(RequestManager.self) { _ in RequestManager(label: "late") }
        #expect(try read() == "late")
        #expect(try layer.resolve(RequestManager.self, for: LayerScreen(), property: "manager").label == "late")
        // And a layer's own registration still wins over a later one of the base.
        layer.register(RequestManager.self) { _ in RequestManager(label: "layer") }
        app.register(RequestManager.self) { _ in RequestManager(label: "later still") }
        #expect(try read() == "layer")
    }

    @Test func aBaseSingletonMadeThroughALayerIsTheLayersOwn() throws {
        let made = Counter()
        let app = appRegistry(made: made)
        let first = Registry(layeredOver: app)
        first.register(LayerClock.self) { _ in LayerClock("first") }
        let second = Registry(layeredOver: app)
        second.register(LayerClock.self) { _ in LayerClock("second") }
        let one = try Registry.withCurrent(first) { try LayerScreen().$mailer.value() }
        let two = try Registry.withCurrent(second) { try LayerScreen().$mailer.value() }
        // Each made with its layer's clock, once per layer.
        #expect(one.clock.label == "first")
        #expect(two.clock.label == "second")
        #expect(try Registry.withCurrent(first) { try LayerScreen().$mailer.value() } === one)
        #expect(made.count == 2)
        // The app's own singleton was not made with a test's fake.
        #expect(try Registry.withCurrent(app) { try LayerScreen().$mailer.value() }.clock.label == "real")
        #expect(made.count == 3)
    }

    @Test func aLayerFallsThroughForScriptBridgeLookupsByName() throws {
        let app = appRegistry()
        let layer = Registry(layeredOver: app)
        let value = try layer.resolve(
            type: SpellTypeKey(RequestManager.self), container: ContainerDescriptor(LayerScreen()), property: "manager")
        #expect((value as? RequestManager)?.label == "app")
    }

    @Test func layeredOverridesLeaveTheRegistryAsItIs() throws {
        let app = appRegistry()
        let labels = try app.withLayeredOverrides({ $0.register(LayerClock.self) { _ in LayerClock("fake") } }, run: {
            [try LayerScreen().$clock.value().label, try LayerScreen().$manager.value().label]
        })
        #expect(labels == ["fake", "app"])
        #expect(app.entries.count == 3)
        #expect(try Registry.withCurrent(app) { try LayerScreen().$clock.value().label } == "real")
    }

    @Test func layeredOverridesOfConcurrentTasksDoNotMeet() async throws {
        let app = appRegistry()
        // Both tasks read after both registered (the barrier), so shared
        // overrides would show the other's.
        let barrier = AsyncBarrier(parties: 2)
        async let first = app.withLayeredOverrides({ $0.register(LayerClock.self) { _ in LayerClock("first") } }) {
            await barrier.arrive()
            return try LayerScreen().$clock.value().label + " " + LayerScreen().$manager.value().label
        }
        async let second = app.withLayeredOverrides({ $0.register(LayerClock.self) { _ in LayerClock("second") } }) {
            await barrier.arrive()
            return try LayerScreen().$clock.value().label + " " + LayerScreen().$manager.value().label
        }
        let labels = try await [first, second]
        #expect(labels == ["first app", "second app"])
    }

    @Test func theReadFailureHandlerHearsOfAFailedReadWithItsNames() throws {
        let registry = Registry()
        registry.readFailurePolicy = .logAndUseFallback
        registry.logger = CapturedLog().logger()
        registry.register(RequestManager.self) { _ in throw LayerWiringFailure() }
        let heard = Lock<[String]>([])
        registry.readFailureHandler = { failure in
            heard.withLock { $0.append("\(failure.container).\(failure.property): \(failure.type)") }
        }
        let manager = Registry.withCurrent(registry) { LayerScreen().lazyManager }
        #expect(manager.label == "default")
        #expect(heard.withLock { $0 } == ["LayerScreen.lazyManager: RequestManager"])
        // A throwing read throws and tells no one.
        #expect(throws: LayerWiringFailure.self) { try Registry.withCurrent(registry) { try LayerScreen().$lazyManager.value() } }
        #expect(heard.withLock { $0 }.count == 1)
    }

    @Test func nestedOverridesInOneTaskAreFine() throws {
        let app = appRegistry()
        let label = try app.withOverrides({ $0.register(LayerClock.self) { _ in LayerClock("outer") } }) {
            try app.withOverrides({ $0.register(LayerClock.self) { _ in LayerClock("inner") } }) {
                try Registry.withCurrent(app) { try LayerScreen().$clock.value().label }
            }
        }
        #expect(label == "inner")
        #expect(app.entries.count == 3)
    }

    @Test func overlappingOverridesFromTwoTasksTrap() async {
        await #expect(processExitsWith: .failure) {
            let registry = Registry()
            let inside = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                registry.withOverrides({ _ in }) {
                    inside.signal()
                    done.wait()
                }
            }
            thread.start()
            inside.wait()
            // Another thread is inside withOverrides on this registry: a trap.
            registry.withOverrides({ _ in }) {}
            done.signal()
        }
    }

    @Test func overridesOneAfterAnotherFromTwoThreadsAreFine() {
        let registry = Registry()
        let finished = DispatchSemaphore(value: 0)
        Thread {
            registry.withOverrides({ $0.register(RequestManager.self) { _ in RequestManager() } }) {}
            finished.signal()
        }.start()
        finished.wait()
        registry.withOverrides({ $0.register(RequestManager.self) { _ in RequestManager() } }) {}
        #expect(registry.entries.isEmpty)
    }
}

/// Suspends each of `parties` callers until all have arrived (no thread is
/// blocked while waiting).
actor AsyncBarrier {
    private let parties: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(parties: Int) { self.parties = parties }

    /// Returns once `parties` callers have called it.
    func arrive() async {
        arrived += 1
        if arrived >= parties {
            for continuation in waiting { continuation.resume() }
            waiting.removeAll()
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}
