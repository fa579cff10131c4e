@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization
import Testing

private final class ObservingController: PropertyInjectionObserving {
    @Injectable var manager: RequestManager
    var injected: [(String, ObjectIdentifier)] = []

    func propertyInjected(name: String, value: Any) {
        injected.append((name, ObjectIdentifier(value as AnyObject)))
    }
}

private final class HookedController {
    @Injectable var manager: RequestManager
    @Injectable var client: any RequestClient
}

private final class SingletonUser {
    @Injectable(registry: singletonThreadsRegistry) var manager: RequestManager
}

private let singletonThreadsRegistry = Registry()
private let singletonThreadsCounter = CallCounter()

/// Collects what hooks report, from any thread.
private typealias HookLog = SharedLog<String>

@Suite struct InjectableTests {
    @Test func theContainerIsToldOnceAfterInjection() {
        let registry = Registry()
        registry.register(RequestManager.self) { _ in RequestManager(label: "x") }
        let controller = ObservingController()
        Registry.withCurrent(registry) {
            let manager = controller.manager
            _ = controller.manager
            _ = controller.manager
            #expect(controller.injected.count == 1)
            #expect(controller.injected.first?.0 == "manager")
            #expect(controller.injected.first?.1 == ObjectIdentifier(manager))
        }
    }

    @Test func registryHooksRunOnceForTheirContainerAndProperty() {
        let registry = Registry()
        let log = HookLog()
        registry.register(RequestManager.self) { _ in RequestManager(label: "m") }
        registry.register((any RequestClient).self) { _ in HTTPClient(label: "c") }
        registry.addHook(for: HookedController.self, property: "manager", valueType: RequestManager.self) { sender, value in
            log.add("typed \(type(of: sender)) \(value.label)")
        }
        registry.addHook(property: "client", source: "test") { _, name, value in
            log.add("any \(name) \((value as? any RequestClient)?.label ?? "?")")
        }
        registry.addHook(for: ObservingController.self, property: "manager", valueType: RequestManager.self) { _, _ in
            log.add("wrong container")
        }
        let controller = HookedController()
        Registry.withCurrent(registry) {
            _ = controller.manager
            _ = controller.manager
            _ = controller.client
            _ = controller.client
        }
        #expect(log.all == ["typed HookedController m", "any client c"])
    }

    @Test func assignmentDoesNotRunHooks() {
        let registry = Registry()
        let log = HookLog()
        registry.addHook(property: "manager", source: "test") { _, _, _ in log.add("hook") }
        let controller = HookedController()
        Registry.withCurrent(registry) {
            controller.manager = RequestManager(label: "assigned")
            #expect(controller.manager.label == "assigned")
        }
        #expect(log.all.isEmpty)
    }

    @Test func aSingletonIsSharedByAllContainers() throws {
        let registry = Registry()
        registry.register(RequestManager.self, scope: .singleton) { _ in RequestManager(label: "single") }
        try Registry.withCurrent(registry) {
            let one = try HookedController().$manager.value()
            let two = try HookedController().$manager.value()
            #expect(one === two)
        }
        let other = Registry()
        other.register(RequestManager.self, scope: .singleton) { _ in RequestManager(label: "single") }
        let three = try Registry.withCurrent(other) { try HookedController().$manager.value() }
        let four = try Registry.withCurrent(registry) { try HookedController().$manager.value() }
        #expect(three !== four)
    }

    @Test func aSingletonIsCreatedExactlyOnceAcross8Threads() {
        singletonThreadsRegistry.register(RequestManager.self, scope: .singleton) { _ in
            singletonThreadsCounter.increment()
            Thread.sleep(forTimeInterval: 0.02)
            return RequestManager(label: "once")
        }
        let identities = distinctObjects(readOn: 8) { SingletonUser().manager }
        #expect(singletonThreadsCounter.value == 1)
        #expect(identities == 1)
    }

    @Test func anInitializerReturningTheWrongTypeIsReported() {
        let registry = Registry()
        registry.registerInitializer(type: SpellTypeKey(name: "RequestManager"), source: "init/bad.lua:7") { _ in "not a manager" }
        let error = #expect(throws: SpellError.self) {
            try Registry.withCurrent(registry) { try HookedController().$manager.value() }
        }
        #expect(error?.description == "HookedController.manager: the initializer registered at init/bad.lua:7 returned String, expected RequestManager")
    }

    @Test func typedResolveWorksWithoutAPropertyWrapper() throws {
        let registry = Registry()
        registry.register(RequestManager.self, container: HookedController.self) { _ in RequestManager(label: "direct") }
        let manager: RequestManager = try registry.resolve(for: HookedController(), property: "manager")
        #expect(manager.label == "direct")
    }
}

private final class ReentrantObserver: PropertyInjectionObserving {
    @Injectable var manager: RequestManager
    var seenInHook: RequestManager?

    func propertyInjected(name: String, value: Any) {
        // Reading the property from its own hook sees the injected value.
        seenInHook = manager
    }
}

private let reentrantRegistry = Registry()
private let reentrantCounter = CallCounter()

@Suite struct InjectionReentrancyTests {
    @Test func aHookMayReadThePropertyItWasToldAbout() {
        let registry = Registry()
        registry.register(RequestManager.self) { _ in RequestManager(label: "hooked") }
        let observer = ReentrantObserver()
        let manager = Registry.withCurrent(registry) { observer.manager }
        #expect(observer.seenInHook === manager)
        #expect(Registry.withCurrent(registry) { observer.manager } === manager)
    }

    @Test func threadsArrivingWhileHooksRunGetThePublishedValue() {
        reentrantRegistry.register(RequestManager.self) { _ in
            reentrantCounter.increment()
            return RequestManager(label: "slow hooks")
        }
        reentrantRegistry.addHook(property: "manager", source: "test") { _, _, _ in
            Thread.sleep(forTimeInterval: 0.02)
        }
        final class Shared {
            @Injectable(registry: reentrantRegistry) var manager: RequestManager
        }
        let box = UncheckedBox(value: Shared())
        let seen = distinctObjects(readOn: 8) { box.value.manager }
        #expect(reentrantCounter.value == 1)
        #expect(seen == 1)
    }
}

private let retryRegistry = Registry()
private let retryCounter = CallCounter()

/// The cold path's claim protocol: a failed production is released, so
/// the next read (on any thread) tries again; typed initializers serve
/// exactly their own type and Optional properties alike.
@Suite struct InjectionClaimTests {
    @Test func aFailedProductionIsRetriedByTheNextRead() throws {
        let registry = Registry()
        let attempts = CallCounter()
        registry.register(RequestManager.self) { _ in
            if attempts.increment() == 1 { throw AttemptFailed() }
            return RequestManager(label: "second")
        }
        final class Holder {
            @Injectable var manager: RequestManager
        }
        let holder = Holder()
        try Registry.withCurrent(registry) {
            #expect(throws: AttemptFailed.self) { try holder.$manager.value() }
            #expect(!holder.$manager.isResolved)
            let manager = try holder.$manager.value()
            #expect(manager.label == "second")
            #expect(holder.manager === manager)
        }
        #expect(attempts.value == 2)
    }

    @Test func threadsWaitingOnAFailedProductionRetryInsteadOfReadingNothing() {
        retryRegistry.register(RequestManager.self) { _ in
            let attempt = retryCounter.increment()
            Thread.sleep(forTimeInterval: 0.02)
            if attempt == 1 { throw AttemptFailed() }
            return RequestManager(label: "attempt \(attempt)")
        }
        final class Shared {
            @Injectable(registry: retryRegistry) var manager: RequestManager
        }
        let box = UncheckedBox(value: Shared())
        let outcomes = Lock<[String]>([])
        runOnThreads(8) { _ in
            let outcome: String
            do { outcome = try box.value.$manager.value().label } catch { outcome = "error" }
            outcomes.withLock { $0.append(outcome) }
        }
        let all = outcomes.withLock { $0 }
        #expect(all.count == 8)
        #expect(all.filter { $0 == "error" }.count == 1)
        // One failed attempt, then exactly one successful one shared by the rest.
        #expect(retryCounter.value == 2)
        #expect(Set(all.filter { $0 != "error" }) == ["attempt 2"])
    }

    @Test func aTypedInitializerAlsoServesOptionalProperties() {
        let registry = Registry()
        registry.register(RequestManager.self) { _ in RequestManager(label: "typed") }
        final class Holder {
            @Injectable var plain: RequestManager
            @Injectable var optional: RequestManager?
            @Lazy var lazyOptional: RequestManager?
        }
        let holder = Holder()
        Registry.withCurrent(registry) {
            #expect(holder.plain.label == "typed")
            #expect(holder.optional?.label == "typed")
            #expect(holder.lazyOptional?.label == "typed")
            #expect(holder.optional !== holder.plain)
        }
    }

    @Test func aContainerTypedInitializerGetsItsSenderTyped() {
        let registry = Registry()
        final class Screen {
            let title = "settings"
            @Injectable var manager: RequestManager
        }
        registry.register(RequestManager.self, container: Screen.self) { screen in RequestManager(label: screen.title) }
        let screen = Screen()
        #expect(Registry.withCurrent(registry) { screen.manager.label } == "settings")
    }

    @Test func aNestedResolutionOfTheSameTypeAndContainerTypeWorks() {
        // The outer resolution borrows the thread's cache slot for
        // (RequestManager, Node); the nested ones map to the same slot.
        let registry = Registry()
        let depth = CallCounter()
        final class Node {
            @Injectable var manager: RequestManager
        }
        registry.register(RequestManager.self, container: Node.self) { _ in
            let level = depth.increment()
            if level < 4 { _ = Node().manager }
            return RequestManager(label: "level \(level)")
        }
        Registry.withCurrent(registry) {
            #expect(Node().manager.label == "level 1")
            #expect(depth.value == 4)
            #expect(Node().manager.label == "level 5")
        }
    }

    @Test func aRegistrationMadeDuringAResolutionAppliesToTheNextOne() {
        let registry = Registry()
        final class Holder {
            @Injectable var manager: RequestManager
        }
        // Unowned: the registry keeps this initializer, so a strong capture
        // would be a cycle that never frees the registry.
        registry.register(RequestManager.self) { [unowned registry] _ in
            registry.register(RequestManager.self, container: Holder.self) { _ in RequestManager(label: "registered meanwhile") }
            return RequestManager(label: "first")
        }
        Registry.withCurrent(registry) {
            #expect(Holder().manager.label == "first")
            #expect(Holder().manager.label == "registered meanwhile")
        }
    }

    @Test func aSingletonWhoseInitializerNeedsItselfIsACycleNotACrash() {
        let registry = Registry()
        final class Holder {
            @Injectable var manager: RequestManager
        }
        registry.register(RequestManager.self, scope: .singleton) { _ in
            // Asks for the singleton it is making.
            _ = try Holder().$manager.value()
            return RequestManager(label: "never")
        }
        _ = Registry.withCurrent(registry) {
            #expect {
                try Holder().$manager.value()
            } throws: { error in
                guard case .dependencyCycle(let chain) = error as? SpellError else { return false }
                return chain.contains("RequestManager (singleton)")
            }
        }
    }

    @Test func singletonsKeepTheirScopeOnTheTypedPath() {
        let registry = Registry()
        let made = CallCounter()
        registry.register(RequestManager.self, scope: .singleton) { _ in
            made.increment()
            return RequestManager(label: "one")
        }
        final class Holder {
            @Injectable var manager: RequestManager
        }
        let first = Holder(), second = Holder()
        Registry.withCurrent(registry) {
            #expect(first.manager === second.manager)
        }
        #expect(made.value == 1)
    }
}

private struct AttemptFailed: Error {}

private let stressRegistry = Registry()
private final class StressClient {
    let id: Int
    init(id: Int) { self.id = id }
}
private final class StressScreen {
    @Injectable(registry: stressRegistry) var client: StressClient
}

@Suite struct InjectionStressTests {
    /// Concurrent first reads through the getter, many shared objects. In
    /// unoptimized builds the runtime copies the whole wrapper on each
    /// access; without `WrapperStorageLocks` this lost values' references.
    @Test
    func eightThreadsFirstReadManySharedObjects() {
        let made = CallCounter()
        stressRegistry.register(StressClient.self) { _ in
            for _ in 0..<200 { _ = made.value }
            return StressClient(id: made.increment())
        }
        for _ in 0..<10 {
            let screens = UncheckedBox(value: (0..<64).map { _ in StressScreen() })
            runOnThreads(8) { _ in
                for screen in screens.value { _ = screen.client }
            }
            #expect(Set(screens.value.map { ObjectIdentifier($0.client) }).count == 64)
            #expect(screens.value.allSatisfy { $0.client.id > 0 })
        }
    }
}
