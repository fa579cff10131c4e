@_spi(BloodMagicInternals) import BloodMagic
@testable import BloodMagic
import Synchronization
import Testing

// Issue 29, scopes: weak (one object while anyone holds it), graph (one
// value per top-level resolution), custom scopes reset as a unit.

/// A value made with a serial number: which one a read got.
protocol MadeWithSerial: Sendable {
    init(serial: Int)
}

/// A registry serving `type` in `scope`, each value made with the next
/// number of the counter returned (1, 2, ...).
private func countingRegistry<Value: MadeWithSerial>(_ type: Value.Type, scope: SpellScope) -> (Registry, CallCounter) {
    let registry = Registry()
    let made = CallCounter()
    registry.register(type, scope: scope) { _ in Value(serial: made.increment()) }
    return (registry, made)
}

/// An object with a serial number (also the singleton slot tests' value).
final class ScopedEngine: MadeWithSerial {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

final class ScopedCar: Sendable {
    let engine: ScopedEngine
    let spare: ScopedEngine
    init(engine: ScopedEngine, spare: ScopedEngine) {
        self.engine = engine
        self.spare = spare
    }
}

/// A value made in two steps: a reader that sees `first != second` saw it half-made.
final class SessionCart: MadeWithSerial {
    let first: Int
    let second: Int
    init(serial: Int) {
        first = serial
        // Let other threads run between the two halves.
        for _ in 0..<50 { yieldToOthers() }
        second = serial
    }
}

struct ScopedSettings: MadeWithSerial, Equatable {
    var serial: Int
}

extension SpellScope {
    static let testSession = SpellScope.custom("session")
}

private let weakRaceRegistry = Registry()
private let weakRaceCounter = CallCounter()
private let sessionRaceRegistry = Registry()
private let sessionRaceCounter = CallCounter()
private let resetRaceRegistry = Registry()
private let resetRaceCounter = CallCounter()

private final class WeakRaceUser {
    @Injectable(registry: weakRaceRegistry) var engine: ScopedEngine
}

private final class SessionRaceUser {
    @Injectable(registry: sessionRaceRegistry) var cart: SessionCart
}

private final class ResetRaceUser {
    @Injectable(registry: resetRaceRegistry) var cart: SessionCart
}

@Suite("Scopes")
struct ScopeTests {
    final class Holder {
        @Injectable var engine: ScopedEngine
        @Injectable var car: ScopedCar
        @Injectable var cart: SessionCart
        @Injectable var settings: ScopedSettings
    }

    /// What `value` reads from a new holder made and read with `registry` current.
    private func read<Value>(_ registry: Registry, _ value: (Holder) throws -> Value) throws -> Value {
        try Registry.withCurrent(registry) { try value(Holder()) }
    }

    // MARK: weak

    @Test func aWeakValueIsSharedWhileHeldAndMadeAnewOnceLetGo() throws {
        let (registry, made) = countingRegistry(ScopedEngine.self, scope: .weak)
        var first: ScopedEngine? = try read(registry) { try $0.$engine.value() }
        let second = try read(registry) { try $0.$engine.value() }
        #expect(first === second)
        #expect(made.value == 1)
        let firstSerial = first?.serial
        first = nil
        _ = consume second
        let third = try read(registry) { try $0.$engine.value() }
        #expect(firstSerial == 1)
        #expect(third.serial == 2)
        #expect(made.value == 2)
    }

    @Test func aWeakScopedValueTypeIsMadeForEachResolution() throws {
        let (registry, _) = countingRegistry(ScopedSettings.self, scope: .weak)
        let values = try Registry.withCurrent(registry) { try (0..<3).map { _ in try Holder().$settings.value() } }
        #expect(values.map(\.serial) == [1, 2, 3])
    }

    @Test func aWeakValueIsTheSameOnTheNamedPath() throws {
        let registry = Registry()
        registry.register(ScopedEngine.self, scope: .weak) { _ in ScopedEngine(serial: 1) }
        let typed = try read(registry) { try $0.$engine.value() }
        let named = try registry.resolveIfRegistered(
            type: SpellTypeKey(ScopedEngine.self), container: ContainerDescriptor(Holder()), property: "engine")
        #expect((named as? ScopedEngine) === typed)
    }

    /// Eight threads race to the first reads while the value is being made,
    /// each keeping what it got: one object, made once.
    @Test func weakValuesAreMadeOnceUnderEightThreads() {
        weakRaceRegistry.register(ScopedEngine.self, scope: .weak) { _ in
            let serial = weakRaceCounter.increment()
            for _ in 0..<2_000 { yieldToOthers() }
            return ScopedEngine(serial: serial)
        }
        let seen = Lock<[ScopedEngine]>([])
        runOnThreads(8) { thread in
            var mine: [ScopedEngine] = []
            for round in 0..<100 {
                if (thread + round) % 2 == 0 {
                    mine.append(WeakRaceUser().engine)
                } else {
                    mine.append(try! weakRaceRegistry.resolve(ScopedEngine.self, for: WeakRaceUser(), property: "engine"))
                }
            }
            seen.withLock { $0 += mine }
        }
        #expect(weakRaceCounter.value == 1)
        #expect(Set(seen.withLock { $0.map(ObjectIdentifier.init) }).count == 1)
    }

    @Test func aWeakInitializerThatNeedsItselfIsACycleNotADeadlock() {
        let registry = Registry()
        registry.register(ScopedEngine.self, scope: .weak) { sender in
            try registry.resolve(ScopedEngine.self, for: sender, property: "again")
        }
        #expect(throws: SpellError.self) {
            try read(registry) { try $0.$engine.value() }
        }
    }

    // MARK: graph

    @Test func aGraphValueIsSharedWithinOneResolutionAndNewForTheNext() throws {
        let (registry, made) = countingRegistry(ScopedEngine.self, scope: .graph)
        registry.register(ScopedCar.self) { sender in
            ScopedCar(
                engine: try registry.resolve(ScopedEngine.self, for: sender, property: "engine"),
                spare: try registry.resolve(ScopedEngine.self, for: sender, property: "spare"))
        }
        let one = try read(registry) { try $0.$car.value() }
        let two = try read(registry) { try $0.$car.value() }
        #expect(one.engine === one.spare)
        #expect(two.engine === two.spare)
        #expect(one.engine !== two.engine)
        #expect(made.value == 2)
        // Two top-level resolutions of the graph-scoped type itself: two values.
        let a = try registry.resolve(ScopedEngine.self, for: Holder(), property: "engine")
        let b = try registry.resolve(ScopedEngine.self, for: Holder(), property: "engine")
        #expect(a !== b)
    }

    @Test func severalGraphScopedTypesAreEachSharedWithinOneResolution() throws {
        let (registry, made) = countingRegistry(ScopedEngine.self, scope: .graph)
        registry.register(ScopedSettings.self, scope: .graph) { _ in ScopedSettings(serial: made.increment()) }
        registry.register(SessionCart.self, scope: .graph) { _ in SessionCart(serial: made.increment()) }
        registry.register(ScopedCar.self) { sender in
            let settings = try (0..<3).map { _ in try registry.resolve(ScopedSettings.self, for: sender, property: "settings") }
            let carts = try (0..<3).map { _ in try registry.resolve(SessionCart.self, for: sender, property: "cart") }
            guard Set(settings.map(\.serial)).count == 1, carts.allSatisfy({ $0 === carts[0] }) else {
                return ScopedCar(engine: ScopedEngine(serial: -1), spare: ScopedEngine(serial: -2))
            }
            return ScopedCar(
                engine: try registry.resolve(ScopedEngine.self, for: sender, property: "engine"),
                spare: try registry.resolve(ScopedEngine.self, for: sender, property: "spare"))
        }
        for round in 0..<3 {
            let car = try read(registry) { try $0.$car.value() }
            #expect(car.engine === car.spare)
            #expect(made.value == 3 * (round + 1))
        }
    }

    @Test func aGraphValueIsSharedBetweenTypedAndNamedResolutionsOfOneGraph() throws {
        let registry = Registry()
        registry.register(ScopedEngine.self, scope: .graph) { _ in ScopedEngine(serial: 1) }
        registry.register(ScopedCar.self) { sender in
            let named = try registry.resolveIfRegistered(
                type: SpellTypeKey(ScopedEngine.self), container: ContainerDescriptor(sender), property: "spare")
            return ScopedCar(
                engine: try registry.resolve(ScopedEngine.self, for: sender, property: "engine"),
                spare: named as! ScopedEngine)
        }
        let car = try read(registry) { try $0.$car.value() }
        #expect(car.engine === car.spare)
    }

    @Test func aGraphScopedTopLevelValueSharesTheGraphValuesItsInitializerResolves() throws {
        // The top-level value is itself graph-scoped (and not kept: nothing
        // after it in its resolution could ask for it); the graph values its
        // initializer resolves are kept and shared, by the spell's first
        // read and by a typed resolution alike.
        let (registry, made) = countingRegistry(ScopedEngine.self, scope: .graph)
        registry.register(ScopedCar.self, scope: .graph) { sender in
            ScopedCar(
                engine: try registry.resolve(ScopedEngine.self, for: sender, property: "engine"),
                spare: try registry.resolve(ScopedEngine.self, for: sender, property: "spare"))
        }
        let read = try read(registry) { try $0.$car.value() }
        let resolved = try registry.resolve(ScopedCar.self, for: Holder(), property: "car")
        let named = try registry.resolveIfRegistered(type: SpellTypeKey(ScopedCar.self), container: ContainerDescriptor(Holder()), property: "car")
        let cars = [read, resolved, try #require(named as? ScopedCar)]
        #expect(cars.allSatisfy { $0.engine === $0.spare })
        #expect(Set(cars.map { ObjectIdentifier($0) }).count == 3)
        #expect(made.value == 3)
    }

    @Test func graphValuesAreNotSharedAcrossThreads() {
        let (registry, made) = countingRegistry(ScopedEngine.self, scope: .graph)
        registry.register(ScopedCar.self) { sender in
            ScopedCar(
                engine: try registry.resolve(ScopedEngine.self, for: sender, property: "engine"),
                spare: try registry.resolve(ScopedEngine.self, for: sender, property: "spare"))
        }
        let shared = UncheckedBox(value: registry)
        let ok = CallCounter()
        runOnThreads(8) { _ in
            for _ in 0..<50 {
                let car = try! shared.value.resolve(ScopedCar.self, for: ScopedEngine(serial: 0), property: "car")
                if car.engine === car.spare { ok.increment() }
            }
        }
        #expect(ok.value == 400)
        #expect(made.value == 400)
    }

    // MARK: custom scopes

    @Test func aCustomScopeKeepsOneValueUntilItIsReset() throws {
        let (registry, _) = countingRegistry(SessionCart.self, scope: .testSession)
        registry.register(ScopedEngine.self, scope: .singleton) { _ in ScopedEngine(serial: 9) }
        let first = try read(registry) { try $0.$cart.value() }
        let again = try read(registry) { try $0.$cart.value() }
        let engine = try read(registry) { try $0.$engine.value() }
        #expect(first === again)
        #expect(registry.reset(scope: .testSession) == 1)
        let afterReset = try read(registry) { try $0.$cart.value() }
        #expect(afterReset !== first)
        #expect(afterReset.first == 2)
        // Another scope's values stay; an object already holding the old one keeps it.
        #expect(try read(registry) { try $0.$engine.value() } === engine)
        #expect(first.first == 1)
        // The named path sees the new value too.
        let named = try registry.resolveIfRegistered(
            type: SpellTypeKey(SessionCart.self), container: ContainerDescriptor(Holder()), property: "cart")
        #expect((named as? SessionCart) === afterReset)
    }

    @Test func resettingASingletonOrAScopeThatKeepsNothing() throws {
        let registry = Registry()
        registry.register(ScopedEngine.self, scope: .singleton) { _ in ScopedEngine(serial: 1) }
        let before = try read(registry) { try $0.$engine.value() }
        #expect(registry.reset(scope: .singleton) == 1)
        #expect(try read(registry) { try $0.$engine.value() } !== before)
        #expect(registry.reset(scope: .instance) == 0)
        #expect(registry.reset(scope: .graph) == 0)
        #expect(registry.reset(scope: .weak) == 0)
        #expect(registry.reset(scope: .custom("nobody")) == 0)
    }

    @Test func aResetMovesTheGenerationOnlyWhenItResetsSomething() {
        let registry = Registry()
        registry.register(SessionCart.self, scope: .testSession) { _ in SessionCart(serial: 1) }
        let generation = registry.currentGeneration
        registry.reset(scope: .custom("other"))
        #expect(registry.currentGeneration == generation)
        registry.reset(scope: .testSession)
        #expect(registry.currentGeneration > generation)
    }

    @Test func customScopedValuesAreMadeOnceUnderEightThreads() {
        sessionRaceRegistry.register(SessionCart.self, scope: .testSession) { _ in
            let serial = sessionRaceCounter.increment()
            for _ in 0..<2_000 { yieldToOthers() }
            return SessionCart(serial: serial)
        }
        let seen = distinctObjectsReadThreeWays(sessionRaceRegistry, SessionCart.self, property: "cart") {
            SessionRaceUser()
        } read: { $0.cart }
        #expect(sessionRaceCounter.value == 1)
        #expect(seen == 1)
    }

    /// Seven threads read while one resets the scope over and over: every
    /// value read is whole, and each reset's value was made once (as many
    /// values made as distinct values seen).
    @Test func aResetDuringReadsGivesEachReaderAWholeOldOrNewValue() {
        resetRaceRegistry.register(SessionCart.self, scope: .testSession) { _ in
            SessionCart(serial: resetRaceCounter.increment())
        }
        let seen = Lock<[SessionCart]>([])
        let halfMade = CallCounter()
        let resets = CallCounter()
        // Each reset waits for a read since the one before, and the readers
        // go on until the last reset is done, so reads and resets always
        // interleave, however the threads are scheduled (on two busy cores
        // the readers could once finish before the resetting thread ran).
        let reads = CallCounter()
        let resetsDone = CallCounter()
        runOnThreads(8) { thread in
            if thread == 0 {
                var readsBefore = reads.value
                for _ in 0..<200 {
                    while reads.value == readsBefore { yieldToOthers() }
                    readsBefore = reads.value
                    resetRaceRegistry.reset(scope: .testSession)
                    resets.increment()
                }
                resetsDone.increment()
                return
            }
            var mine: [SessionCart] = []
            var round = 0
            // At least 400 reads each, and one more after the last reset.
            while round < 400 || resetsDone.value == 0 || round % 2 == 1 {
                let cart = round % 2 == 0
                    ? ResetRaceUser().cart
                    : try! resetRaceRegistry.resolve(SessionCart.self, for: ResetRaceUser(), property: "cart")
                if cart.first != cart.second { halfMade.increment() }
                mine.append(cart)
                reads.increment()
                round += 1
            }
            seen.withLock { $0 += mine }
        }
        let distinct = Set(seen.withLock { $0.map(ObjectIdentifier.init) }).count
        #expect(halfMade.value == 0)
        #expect(distinct > 1, "the readers never saw a reset")
        #expect(resetRaceCounter.value == distinct)
        #expect(distinct <= resets.value + 1)
    }

    // MARK: names

    @Test func scopeNamesAndTheirRules() {
        #expect(SpellScope(rawValue: "weak") == .weak)
        #expect(SpellScope(rawValue: "graph") == .graph)
        #expect(SpellScope(rawValue: "session") == .custom("session"))
        #expect(SpellScope(rawValue: "session")?.isCustom == true)
        #expect(SpellScope.custom("singleton") == .singleton)
        #expect(SpellScope(rawValue: "") == nil)
        #expect(SpellScope(rawValue: "9lives") == nil)
        #expect(SpellScope(rawValue: "user session") == nil)
        #expect(SpellScope(rawValue: String(repeating: "a", count: 65)) == nil)
        #expect(SpellScope.isValidCustomName("user-session.v2"))
        #expect(!SpellScope.isValidCustomName("graph"))
        #expect(SpellScope.weak.description == "weak")
        #expect(!SpellScope.singleton.isCustom)
    }

    @Test func customScopesAreKnownOnceDeclaredOrRegisteredFromSwift() {
        let registry = Registry()
        #expect(registry.knowsScope(.weak))
        #expect(!registry.knowsScope(.custom("session")))
        registry.declareScope(.custom("session"))
        registry.register(SessionCart.self, scope: .custom("checkout")) { _ in SessionCart(serial: 1) }
        #expect(registry.knowsScope(.custom("session")))
        #expect(registry.declaredScopes.map(\.rawValue) == ["checkout", "session"])
        // Declared scopes describe the app: removeAll keeps them.
        registry.removeAll()
        #expect(registry.knowsScope(.custom("checkout")))
    }

    @Test func entriesAndExplanationsSayTheScope() {
        let registry = Registry()
        registry.register(ScopedEngine.self, scope: .graph) { _ in ScopedEngine(serial: 1) }
        registry.register(SessionCart.self, scope: .testSession) { _ in SessionCart(serial: 1) }
        #expect(registry.entries.map(\.scope) == [.graph, .testSession])
        #expect(registry.entries[1].description.contains("(session)"))
        let explanation = registry.explain(SpellTypeKey(ScopedEngine.self), in: nil, property: nil).description
        #expect(explanation.contains("initializer (graph scope) ScopedEngine in any container"))
        #expect(explanation.contains("wins: the initializer (graph scope) registered at"))
    }
}

/// Gives up the processor (a short spin that lets other threads run).
private func yieldToOthers() {
    #if canImport(Glibc)
    _ = sched_yield()
    #endif
}

#if canImport(Glibc)
import Glibc
#endif
