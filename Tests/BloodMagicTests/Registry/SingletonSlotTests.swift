@testable import BloodMagic
import Synchronization
import Testing

struct SlotSettings: Sendable, Equatable {
    var name: String
    var retries: Int
}

private let slotRaceRegistry = Registry()
private let slotRaceCounter = CallCounter()

private final class SlotRaceUser {
    @Injectable(registry: slotRaceRegistry) var clock: ScopedEngine
}

/// Issue 17: a singleton's value is published once, lock-free, in a slot
/// that belongs to its registration; typed reads take it without a cast.
@Suite("Singleton slots")
struct SingletonSlotTests {
    final class Holder {
        @Injectable var clock: ScopedEngine
        @Injectable var settings: SlotSettings
    }

    @Test func aSingletonMadeByNameIsTheOneATypedReadGets() throws {
        let registry = Registry()
        let made = CallCounter()
        registry.register(ScopedEngine.self, scope: .singleton) { _ in
            made.increment()
            return ScopedEngine(serial: made.value)
        }
        // First through the type-erased path a script bridge uses...
        let byName = try #require(
            try registry.resolveIfRegistered(
                type: SpellTypeKey(ScopedEngine.self), container: ContainerDescriptor(Holder()), property: "clock")
                as? ScopedEngine)
        // ...then typed, through a property and through `resolve`.
        let typed = try Registry.withCurrent(registry) { try Holder().$clock.value() }
        let resolved = try registry.resolve(ScopedEngine.self, for: Holder(), property: "clock")
        #expect(byName === typed)
        #expect(typed === resolved)
        #expect(made.value == 1)
    }

    @Test func aSingletonMadeTypedIsTheOneTheNamedPathGets() throws {
        let registry = Registry()
        registry.register(ScopedEngine.self, scope: .singleton) { _ in ScopedEngine(serial: 1) }
        let typed = try Registry.withCurrent(registry) { try Holder().$clock.value() }
        let byName = try registry.resolveIfRegistered(
            type: SpellTypeKey(ScopedEngine.self), container: ContainerDescriptor(Holder()), property: "clock")
        #expect((byName as? ScopedEngine) === typed)
    }

    @Test func aValueTypeSingletonReadsBackTyped() throws {
        let registry = Registry()
        let made = CallCounter()
        registry.register(SlotSettings.self, scope: .singleton) { _ in
            made.increment()
            return SlotSettings(name: "shared", retries: 3)
        }
        let values = try Registry.withCurrent(registry) { try (0..<5).map { _ in try Holder().$settings.value() } }
        #expect(values.allSatisfy { $0 == SlotSettings(name: "shared", retries: 3) })
        #expect(made.value == 1)
    }

    @Test func aReplacingRegistrationMakesItsOwnSingleton() throws {
        let registry = Registry()
        registry.register(ScopedEngine.self, scope: .singleton) { _ in ScopedEngine(serial: 1) }
        let first = try Registry.withCurrent(registry) { try Holder().$clock.value() }
        let replacement = registry.register(ScopedEngine.self, scope: .singleton) { _ in ScopedEngine(serial: 2) }
        let second = try Registry.withCurrent(registry) { try Holder().$clock.value() }
        #expect(first.serial == 1)
        #expect(second.serial == 2)
        // The first registration's slot still holds its own value.
        registry.unregister(replacement)
        let again = try Registry.withCurrent(registry) { try Holder().$clock.value() }
        #expect(again === first)
    }

    @Test func aFailedSingletonIsNotPublishedAndIsMadeOnTheNextRead() throws {
        struct Refusal: Error {}
        let registry = Registry()
        let attempts = CallCounter()
        registry.register(ScopedEngine.self, scope: .singleton) { _ in
            attempts.increment()
            if attempts.value == 1 { throw Refusal() }
            return ScopedEngine(serial: attempts.value)
        }
        let firstTry = try? Registry.withCurrent(registry) { try Holder().$clock.value() }
        let made = try Registry.withCurrent(registry) { try Holder().$clock.value() }
        let again = try Registry.withCurrent(registry) { try Holder().$clock.value() }
        #expect(firstTry == nil)
        #expect(made.serial == 2)
        #expect(again === made)
        #expect(attempts.value == 2)
    }

    /// A value carried over to a new registration (a script reload keeps
    /// an unchanged singleton's value) is read typed when it is of the
    /// registration's type; a value of another type is not used, and the
    /// new registration makes its own.
    @Test func aCarriedOverValueIsReadTypedOrMadeAnew() throws {
        let registry = Registry()
        let kept = ScopedEngine(serial: 41)
        let stage = registry.openStage()
        let typed = registry.withStage(stage) {
            registry.register(ScopedEngine.self, scope: .singleton) { _ in ScopedEngine(serial: 1) }
        }
        let mistyped = registry.withStage(stage) {
            registry.register(SlotSettings.self, scope: .singleton) { _ in SlotSettings(name: "made", retries: 0) }
        }
        registry.commitStage(stage, replacing: [], presetSingletons: [typed: kept, mistyped: "not settings"])
        let clock = try Registry.withCurrent(registry) { try Holder().$clock.value() }
        let settings = try Registry.withCurrent(registry) { try Holder().$settings.value() }
        #expect(clock === kept)
        #expect(settings == SlotSettings(name: "made", retries: 0))
    }

    /// Eight threads race to the first read of new containers, through
    /// properties, the typed `resolve` and the named path, while the
    /// singleton is being made: one value, made once, seen by all.
    @Test func threadsRacingTheFirstReadsAllSeeOneValue() {
        slotRaceRegistry.register(ScopedEngine.self, scope: .singleton) { _ in
            slotRaceCounter.increment()
            // Keep the slot's lock held while the other threads arrive.
            for _ in 0..<2_000 { yieldThread() }
            return ScopedEngine(serial: 7)
        }
        let seen = distinctObjectsReadThreeWays(slotRaceRegistry, ScopedEngine.self, property: "clock") {
            SlotRaceUser()
        } read: { $0.clock }
        #expect(slotRaceCounter.value == 1)
        #expect(seen == 1)
    }
}

/// Gives up the processor (a short spin that lets other threads run).
private func yieldThread() {
    #if canImport(Glibc)
    _ = sched_yield()
    #endif
}

#if canImport(Glibc)
import Glibc
#endif
