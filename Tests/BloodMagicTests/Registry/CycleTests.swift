import BloodMagic
import Foundation
import Testing

private final class CycleViewController: SpellTypeNamed {
    static var spellTypeName: String { "ViewController" }
    @Injectable var loader: CycleResourceLoader
}

private final class CycleResourceLoader: SpellTypeNamed {
    static var spellTypeName: String { "ResourceLoader" }
    /// Weak, as an owner back-reference should be: the owner keeps its
    /// loader, so a strong one would be a cycle that frees neither.
    weak var owner: CycleViewController?
    init(owner: CycleViewController) { self.owner = owner }
    @Injectable var session: CycleSession
}

private final class CycleSession {}

private final class SelfNeeding {
    @Lazy var me: SelfNeedingPart
}

private final class SelfNeedingPart {}

@Suite struct CycleTests {
    @Test func aCycleThroughTwoObjectsIsReportedWithItsChain() throws {
        let registry = Registry()
        registry.register(CycleResourceLoader.self, container: CycleViewController.self) { controller in
            let loader = CycleResourceLoader(owner: controller)
            _ = try loader.$session.value()
            return loader
        }
        registry.register(CycleSession.self, container: CycleResourceLoader.self) { loader in
            _ = try #require(loader.owner).$loader.value()
            return CycleSession()
        }
        let error = #expect(throws: SpellError.self) {
            try Registry.withCurrent(registry) { try CycleViewController().$loader.value() }
        }
        #expect(error?.description == "dependency cycle: ViewController.loader -> ResourceLoader.session -> ViewController.loader")
        #expect(error == .dependencyCycle(chain: ["ViewController.loader", "ResourceLoader.session", "ViewController.loader"]))
        #expect(Registry.resolutionsInProgress.isEmpty)
    }

    @Test func aPropertyNeedingItselfIsACycleNotAStackOverflow() throws {
        let registry = Registry()
        registry.register(SelfNeedingPart.self) { sender in
            _ = try (sender as! SelfNeeding).$me.value()
            return SelfNeedingPart()
        }
        let error = #expect(throws: SpellError.self) {
            try Registry.withCurrent(registry) { try SelfNeeding().$me.value() }
        }
        #expect(error?.description == "dependency cycle: SelfNeeding.me -> SelfNeeding.me")
    }

    @Test func bridgeStepsAndSwiftStepsShareOneTracker() throws {
        let registry = Registry()
        let object = UncheckedBox(value: CycleSession())
        registry.register(CycleSession.self) { _ in
            try Registry.trackResolution(container: "CycA", property: "b", object: object.value) {
                try Registry.trackResolution(container: "CycB", property: "a", object: nil) {
                    try Registry.trackResolution(container: "CycA", property: "b", object: object.value) { CycleSession() }
                }
            }
        }
        let owner = CycleViewController()
        let error = withExtendedLifetime(owner) {
            #expect(throws: SpellError.self) {
                try Registry.withCurrent(registry) { try CycleResourceLoader(owner: owner).$session.value() }
            }
        }
        #expect(error?.description == "dependency cycle: CycA.b -> CycB.a -> CycA.b")
    }

    @Test func theSameTypeInTwoObjectsIsNotACycle() throws {
        let registry = Registry()
        registry.register(CycleResourceLoader.self) { controller in
            let loader = CycleResourceLoader(owner: controller as! CycleViewController)
            return loader
        }
        registry.register(CycleSession.self) { loader in
            // Resolving another object's property of the same name is fine.
            let otherOwner = CycleViewController()
            let other = CycleResourceLoader(owner: otherOwner)
            withExtendedLifetime(otherOwner) { _ = other }
            return CycleSession()
        }
        let controller = CycleViewController()
        try withExtendedLifetime(controller) {
            let loader = try Registry.withCurrent(registry) { try controller.$loader.value() }
            let session = try Registry.withCurrent(registry) { try loader.$session.value() }
            #expect(loader.owner === controller)
            #expect(try Registry.withCurrent(registry) { try loader.$session.value() } === session)
        }
    }
}

private final class PingService {}
private final class PongService {}

/// One object whose two properties need each other, read on two threads.
private final class Court {
    @Injectable var ping: PingService
    @Injectable var pong: PongService
}

/// A cycle that runs across threads: thread A produces `ping`, whose
/// initializer reads `pong`, while thread B produces `pong`, whose
/// initializer reads `ping`. Each would wait for the other forever; the wait
/// graph turns it into the cycle error on both threads.
@Suite struct CrossThreadCycleTests {
    @Test func aCycleAcrossTwoThreadsIsAnErrorNotADeadlock() throws {
        let registry = Registry()
        // Both initializers start before either reads the other property,
        // so that each thread holds its own claim when it asks (later
        // attempts, after a failure, go straight through).
        let arrived = CallCounter()
        let bothStarted: @Sendable () -> Void = {
            arrived.increment()
            let deadline = Date().addingTimeInterval(5)
            while arrived.value < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        }
        registry.register(PingService.self, container: Court.self) { court in
            bothStarted()
            _ = try court.$pong.value()
            return PingService()
        }
        registry.register(PongService.self, container: Court.self) { court in
            bothStarted()
            _ = try court.$ping.value()
            return PongService()
        }
        let court = UncheckedBox(value: Court())
        let errors = UncheckedBox(value: NSMutableArray())
        let lock = NSLock()
        let done = DispatchGroup()
        for read in [{ (c: Court) in _ = try c.$ping.value() }, { (c: Court) in _ = try c.$pong.value() }] {
            done.enter()
            let reader = UncheckedBox(value: read)
            Thread.detachNewThread {
                defer { done.leave() }
                do {
                    try Registry.withCurrent(registry) { try reader.value(court.value) }
                } catch {
                    lock.lock()
                    errors.value.add("\(error)")
                    lock.unlock()
                }
            }
        }
        // Before the wait graph, both threads waited for each other forever.
        try #require(done.wait(timeout: .now() + 30) == .success, "the two threads deadlocked")
        let messages = errors.value.compactMap { $0 as? String }.sorted()
        #expect(messages.count == 2)
        let cycles = [
            "dependency cycle: Court.ping -> Court.pong -> Court.ping",
            "dependency cycle: Court.pong -> Court.ping -> Court.pong",
        ]
        for message in messages {
            #expect(cycles.contains(message), "\(message)")
        }
        #expect(!court.value.$ping.isResolved && !court.value.$pong.isResolved)
    }
}
