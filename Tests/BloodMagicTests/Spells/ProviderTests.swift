@testable import BloodMagic
import Testing

// Issue 29: @Provider makes a new value on every read (Swinject's Provider).

final class ProvidedTask: Sendable {
    let serial: Int
    let sender: ObjectIdentifier?
    init(serial: Int, sender: AnyObject? = nil) {
        self.serial = serial
        self.sender = sender.map(ObjectIdentifier.init)
    }
}

final class ProvidedClock: Sendable {}

@Suite("@Provider")
struct ProviderTests {
    final class Queue {
        @Provider var makeTask: ProvidedTask
        @Provider var maybe: ProvidedClock?
        @Provider(name: "clock") var sharedClock: ProvidedClock
        @Lazy var lazyTask: ProvidedTask
    }

    @Test func everyReadMakesANewValueWithTheContainerAsSender() throws {
        let registry = Registry()
        let made = CallCounter()
        registry.register(ProvidedTask.self) { sender in ProvidedTask(serial: made.increment(), sender: sender) }
        let queue = Registry.withCurrent(registry) { Queue() }
        let first = queue.makeTask
        let second = queue.makeTask
        #expect(first !== second)
        #expect([first.serial, second.serial] == [1, 2])
        #expect(first.sender == ObjectIdentifier(queue))
        // Lazy stores its one value; the provider does not.
        #expect(queue.lazyTask === queue.lazyTask)
        #expect(made.value == 3)
    }

    @Test func theRegistrationsScopeDecides() throws {
        let registry = Registry()
        registry.register(ProvidedClock.self, scope: .singleton) { _ in ProvidedClock() }
        let queue = Registry.withCurrent(registry) { Queue() }
        #expect(queue.sharedClock === queue.sharedClock)
    }

    @Test func nothingRegisteredThrowsThroughTheProjectionAndAnOptionalReadsNil() throws {
        let registry = Registry()
        registry.register(ProvidedTask.self, container: Queue.self) { _ in ProvidedTask(serial: 0) }
        let queue = Registry.withCurrent(registry) { Queue() }
        #expect(queue.maybe == nil)
        #expect(throws: SpellError.noInitializer(property: "clock", container: "ProviderTests.Queue", type: "ProvidedClock", closest: [])) {
            try queue.$sharedClock.value()
        }
        #expect(try queue.$makeTask().serial == 0)
        registry.register(ProvidedClock.self) { _ in ProvidedClock() }
        #expect(queue.maybe != nil)
    }

    @Test func itDescribesItselfForManifests() {
        let properties = SpellReflection.properties(of: Queue())
        #expect(properties.map(\.spell) == [.provider, .provider, .provider, .lazy])
        #expect(properties.map(\.name) == ["makeTask", "maybe", "clock", "lazyTask"])
        #expect(properties[1].isOptional)
    }

    @Test func aReadInsideAResolutionSharesItsGraph() throws {
        let registry = Registry()
        registry.register(ProvidedClock.self, scope: .graph) { _ in ProvidedClock() }
        final class Pair {
            @Provider var clock: ProvidedClock
        }
        registry.register(ProvidedTask.self) { _ in
            let pair = Pair()
            return ProvidedTask(serial: pair.clock === pair.clock ? 1 : 0)
        }
        let queue = Registry.withCurrent(registry) { Queue() }
        #expect(queue.makeTask.serial == 1)
        let outside = Registry.withCurrent(registry) { Pair() }
        #expect(outside.clock !== outside.clock)
    }
}
