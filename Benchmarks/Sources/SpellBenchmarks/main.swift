// Spell benchmarks: warm reads against a plain stored property, and cold
// resolution against Swinject 2.10's transient resolve, in the same run;
// singleton first reads against instance-scope ones; and the peers
// (Swinject 2.10, swift-dependencies 1.17) beside a hand-written registry.
import BenchSupport
import BloodMagic
import Dependencies
import Swinject
import Synchronization

final class RequestManager {
    var requests = 0
}

/// The baseline for warm reads: a plain stored property.
final class PlainContainer {
    var manager = RequestManager()
}

final class LazyContainer {
    @BloodMagic.Lazy(registry: benchRegistry) var manager: RequestManager
}

final class InjectableContainer {
    @Injectable(registry: benchRegistry) var manager: RequestManager
}

/// A second baseline: a stored property the program does reassign, so
/// the optimizer cannot treat it as a constant and must retain the value
/// it hands out, as it must for a spell's value.
final class MutablePlainContainer {
    var manager = RequestManager()
}

@inline(never)
func reassign(_ container: MutablePlainContainer) {
    container.manager = RequestManager()
}

/// A container with no spell, to show what allocating one costs.
final class EmptyContainer {
    var manager: RequestManager?
}

let benchRegistry = Registry()
benchRegistry.register(RequestManager.self) { _ in RequestManager() }

/// A value served as a singleton (made once, then shared).
final class SharedClock: Sendable {
    let zone = 0
}

final class SingletonContainer {
    @Injectable(registry: benchRegistry) var clock: SharedClock
}
benchRegistry.register(SharedClock.self, scope: .singleton) { _ in SharedClock() }

let swinject = Container()
swinject.register(RequestManager.self) { _ in RequestManager() }.inObjectScope(.transient)

let warmOperations = 20_000_000
let coldOperations = 300_000
let suite = BenchmarkSuite("BloodMagic spells (release)", rounds: 7)

// Warm reads: the same object, value already resolved.
let plain = identity(PlainContainer())
suite.measure("plain stored property read", operations: warmOperations) { count in
    for _ in 0..<count { blackHole(plain.manager) }
}
let mutablePlain = identity(MutablePlainContainer())
reassign(mutablePlain)
suite.measure("plain stored var read (reassigned elsewhere)", operations: warmOperations) { count in
    for _ in 0..<count { blackHole(mutablePlain.manager) }
}
let lazy = identity(LazyContainer())
_ = lazy.manager
suite.measure("@Lazy warm read", operations: warmOperations, baseline: "plain stored property read", goal: 2) { count in
    for _ in 0..<count { blackHole(lazy.manager) }
}
let injectable = identity(InjectableContainer())
_ = injectable.manager
suite.measure("@Injectable warm read", operations: warmOperations, baseline: "plain stored property read", goal: 2) { count in
    for _ in 0..<count { blackHole(injectable.manager) }
}
suite.measure("@Lazy warm read (vs reassigned var)", operations: warmOperations, baseline: "plain stored var read (reassigned elsewhere)", goal: 2) { count in
    for _ in 0..<count { blackHole(lazy.manager) }
}
suite.measure("@Injectable warm read (vs reassigned var)", operations: warmOperations, baseline: "plain stored var read (reassigned elsewhere)", goal: 2) { count in
    for _ in 0..<count { blackHole(injectable.manager) }
}
// The throwing form, `$manager.value()`, on a resolved property.
suite.measure("@Injectable warm $property.value()", operations: coldOperations, baseline: "plain stored property read") { count in
    for _ in 0..<count { blackHole(try! injectable.$manager.value()) }
}

// Cold resolution: lookup, call, (store).
suite.measure("Swinject 2.10 transient resolve", operations: coldOperations) { count in
    for _ in 0..<count { blackHole(swinject.resolve(RequestManager.self)) }
}
let sender = identity(EmptyContainer())
suite.measure("registry.resolve (lookup + call)", operations: coldOperations, baseline: "Swinject 2.10 transient resolve", goal: 0.05) { count in
    for _ in 0..<count { blackHole(try! benchRegistry.resolve(RequestManager.self, for: sender, property: "manager")) }
}
suite.measure("for scale: new container, then its first @Injectable read", operations: coldOperations, baseline: "Swinject 2.10 transient resolve") { count in
    for _ in 0..<count {
        let container = InjectableContainer()
        blackHole(container.manager)
    }
}
// The same first read on containers made beforehand (outside the timing),
// so the figure is the resolution alone: lookup, initializer call (which
// allocates the RequestManager, as Swinject's does), store and publish.
nonisolated(unsafe) var madeContainers: [InjectableContainer] = []
suite.measure(
    "@Injectable first read, container made beforehand", operations: coldOperations,
    baseline: "Swinject 2.10 transient resolve", goal: 0.05,
    setup: { madeContainers = (0..<coldOperations).map { _ in InjectableContainer() } }
) { count in
    madeContainers.withUnsafeBufferPointer { containers in
        for index in 0..<count { blackHole(containers[index].manager) }
    }
}
// The same in batches of 1,000 containers made just before the timing, as
// an app reads an object's properties soon after making it (the batch stays
// in cache; the 300,000 above do not).
let batch = 1_000
let batchSuite = BenchmarkSuite("cold reads in batches of \(batch)", rounds: 301)
batchSuite.measure("Swinject 2.10 transient resolve", operations: batch) { count in
    for _ in 0..<count { blackHole(swinject.resolve(RequestManager.self)) }
}
batchSuite.measure(
    "@Injectable first read, container made just before", operations: batch,
    baseline: "Swinject 2.10 transient resolve", goal: 0.05,
    setup: { madeContainers = (0..<batch).map { _ in InjectableContainer() } }
) { count in
    madeContainers.withUnsafeBufferPointer { containers in
        for index in 0..<count { blackHole(containers[index].manager) }
    }
}

// Issue 17: a singleton's first read (the value exists; nothing is made)
// next to the instance-scope first read, both on containers made beforehand.
nonisolated(unsafe) var singletonContainers: [SingletonContainer] = []
suite.measure(
    "@Injectable singleton first read, container made beforehand", operations: coldOperations,
    baseline: "@Injectable first read, container made beforehand", goal: 1,
    setup: { singletonContainers = (0..<coldOperations).map { _ in SingletonContainer() } }
) { count in
    singletonContainers.withUnsafeBufferPointer { containers in
        for index in 0..<count { blackHole(containers[index].clock) }
    }
}

// Issue 29: a named first read and resolution against the unnamed ones
// (goal: at most 1.1 times), Swinject's named resolve beside them, and
// resolveAll of 10 registrations against one resolve (goal: at most 10 times).
extension SpellName<RequestManager> {
    static var primary: Self { "primary" }
}
final class NamedInjectableContainer {
    @Injectable(named: .primary, registry: benchRegistry) var manager: RequestManager
}
benchRegistry.register(RequestManager.self, named: .primary) { _ in RequestManager() }
swinject.register(RequestManager.self, name: "primary") { _ in RequestManager() }.inObjectScope(.transient)
nonisolated(unsafe) var namedContainers: [NamedInjectableContainer] = []
suite.measure(
    "@Injectable(named:) first read, container made beforehand", operations: coldOperations,
    baseline: "@Injectable first read, container made beforehand", goal: 1.1,
    setup: { namedContainers = (0..<coldOperations).map { _ in NamedInjectableContainer() } }
) { count in
    namedContainers.withUnsafeBufferPointer { containers in
        for index in 0..<count { blackHole(containers[index].manager) }
    }
}
suite.measure("registry.resolve(named:)", operations: coldOperations, baseline: "registry.resolve (lookup + call)", goal: 1.1) { count in
    for _ in 0..<count { blackHole(try! benchRegistry.resolve(RequestManager.self, named: .primary, for: sender, property: "manager")) }
}
suite.measure("Swinject 2.10 named transient resolve", operations: coldOperations, baseline: "Swinject 2.10 transient resolve") { count in
    for _ in 0..<count { blackHole(swinject.resolve(RequestManager.self, name: "primary")) }
}
// Runtime arguments: a resolution with one argument against the plain one
// (goal: at most 1.1 times), Swinject's resolve(_:argument:) beside it.
final class ArgumentModel {
    let id: Int
    init(id: Int) { self.id = id }
}
benchRegistry.register(ArgumentModel.self, arguments: Int.self) { _, id in ArgumentModel(id: id) }
swinject.register(ArgumentModel.self) { (_: Resolver, id: Int) in ArgumentModel(id: id) }.inObjectScope(.transient)
suite.measure("registry.resolve(arguments:) with one Int", operations: coldOperations,
              baseline: "registry.resolve (lookup + call)", goal: 1.1) { count in
    for index in 0..<count { blackHole(try! benchRegistry.resolve(ArgumentModel.self, arguments: index, for: sender, property: "model")) }
}
suite.measure("Swinject 2.10 resolve(_:argument:) with one Int", operations: coldOperations,
              baseline: "Swinject 2.10 transient resolve") { count in
    for index in 0..<count { blackHole(swinject.resolve(ArgumentModel.self, argument: index)) }
}
protocol BenchPlugin: AnyObject {}
final class TenthPlugin: BenchPlugin {}
let pluginRegistry = Registry()
for index in 0..<10 {
    pluginRegistry.register((any BenchPlugin).self, named: SpellName("plugin \(index)")) { _ in TenthPlugin() }
}
pluginRegistry.register(TenthPlugin.self) { _ in TenthPlugin() }
suite.measure("registry.resolve of one plug-in", operations: coldOperations / 10) { count in
    for _ in 0..<count { blackHole(try! pluginRegistry.resolve(TenthPlugin.self, for: sender, property: "plugin")) }
}
suite.measure("registry.resolveAll of 10 plug-ins", operations: coldOperations / 10,
              baseline: "registry.resolve of one plug-in", goal: 10) { count in
    for _ in 0..<count { blackHole(try! pluginRegistry.resolveAll((any BenchPlugin).self, for: sender)) }
}
// Forwarding: a singleton read through a forwarded protocol, next to its
// own type, and Swinject's `.implements` beside them.
protocol ForwardedClock: AnyObject {}
final class ForwardingClock: ForwardedClock, Sendable {}
let forwardRegistry = Registry()
forwardRegistry.register(ForwardingClock.self, scope: .singleton, implements: [(any ForwardedClock).self]) { _ in ForwardingClock() }
swinject.register(ForwardingClock.self) { _ in ForwardingClock() }.implements((any ForwardedClock).self).inObjectScope(.container)
suite.measure("registry.resolve of a singleton by its own type", operations: coldOperations) { count in
    for _ in 0..<count { blackHole(try! forwardRegistry.resolve(ForwardingClock.self, for: sender, property: "clock")) }
}
suite.measure("registry.resolve of a singleton through a forwarded protocol", operations: coldOperations,
              baseline: "registry.resolve of a singleton by its own type") { count in
    for _ in 0..<count { blackHole(try! forwardRegistry.resolve((any ForwardedClock).self, for: sender, property: "clock")) }
}
suite.measure("Swinject 2.10 resolve through .implements (container scope)", operations: coldOperations,
              baseline: "registry.resolve of a singleton by its own type") { count in
    for _ in 0..<count { blackHole(swinject.resolve((any ForwardedClock).self)) }
}

suite.measure("for scale: new plain container + RequestManager()", operations: coldOperations, baseline: "Swinject 2.10 transient resolve") { count in
    for _ in 0..<count {
        let container = identity(EmptyContainer())
        container.manager = RequestManager()
        blackHole(container)
    }
}

suite.printReport()
batchSuite.printReport()

// MARK: - Peers: Swinject 2.10, swift-dependencies 1.17, a hand-written registry

/// The floor of any registry keyed by type: a `Mutex<[ObjectIdentifier:
/// closure]>` lookup, the call and the cast back to the type.
final class HandWrittenRegistry: Sendable {
    private let makers = Mutex<[ObjectIdentifier: @Sendable () -> Any]>([:])

    func register<Value>(_ type: Value.Type, _ make: @escaping @Sendable () -> Value) {
        makers.withLock { $0[ObjectIdentifier(type)] = make }
    }

    @inline(never)
    func resolve<Value>(_ type: Value.Type) -> Value? {
        guard let make = makers.withLock({ $0[ObjectIdentifier(type)] }) else { return nil }
        return make() as? Value
    }
}
let handWritten = HandWrittenRegistry()
handWritten.register(RequestManager.self) { RequestManager() }

/// swift-dependencies' client for the same service: a Sendable value.
final class DependencyService: Sendable {
    let requests = 0
}
enum DependencyServiceKey: DependencyKey {
    static let liveValue = DependencyService()
}
extension DependencyValues {
    var service: DependencyService {
        get { self[DependencyServiceKey.self] }
        set { self[DependencyServiceKey.self] = newValue }
    }
}
final class DependenciesModel {
    @Dependency(\.service) var service
}
final class ServiceContainer {
    @Injectable(registry: benchRegistry) var service: DependencyService
}
let sharedService = DependencyService()
benchRegistry.register(DependencyService.self) { _ in sharedService }

handWritten.register(DependencyService.self) { sharedService }

// Resolution of a new value (instance scope, the initializer allocates).
let floorName = "hand-written Mutex<[ObjectIdentifier: closure]> registry: lookup + call"
let peers = BenchmarkSuite("peers: resolving a new RequestManager", rounds: 7)
let peerOperations = 300_000
peers.measure(floorName, operations: peerOperations) { count in
    for _ in 0..<count { blackHole(handWritten.resolve(RequestManager.self)) }
}
peers.measure("BloodMagic registry.resolve (lookup + call)", operations: peerOperations, baseline: floorName) { count in
    let sender = identity(EmptyContainer())
    for _ in 0..<count { blackHole(try! benchRegistry.resolve(RequestManager.self, for: sender, property: "manager")) }
}
peers.measure(
    "BloodMagic @Injectable first read, container made beforehand", operations: peerOperations, baseline: floorName,
    setup: { madeContainers = (0..<peerOperations).map { _ in InjectableContainer() } }
) { count in
    madeContainers.withUnsafeBufferPointer { containers in
        for index in 0..<count { blackHole(containers[index].manager) }
    }
}
peers.measure("Swinject 2.10 transient resolve", operations: peerOperations, baseline: floorName) { count in
    for _ in 0..<count { blackHole(swinject.resolve(RequestManager.self)) }
}
peers.printReport()

// Reading a shared service (made once): swift-dependencies looks it up on
// every read; a BloodMagic property stores it on its first read.
let sharedFloor = "hand-written registry: lookup + call returning a shared service"
let reads = BenchmarkSuite("peers: reading a shared service", rounds: 7)
reads.measure(sharedFloor, operations: peerOperations) { count in
    for _ in 0..<count { blackHole(handWritten.resolve(DependencyService.self)) }
}
let model = identity(DependenciesModel())
_ = model.service
reads.measure("swift-dependencies 1.17 @Dependency read, live value", operations: peerOperations, baseline: sharedFloor) { count in
    for _ in 0..<count { blackHole(model.service) }
}
let overridden = DependencyService()
reads.measure("swift-dependencies 1.17 @Dependency read inside withDependencies", operations: peerOperations,
              baseline: sharedFloor) { count in
    withDependencies { $0.service = overridden } operation: {
        let model = identity(DependenciesModel())
        for _ in 0..<count { blackHole(model.service) }
    }
}
let serviceContainer = identity(ServiceContainer())
_ = serviceContainer.service
reads.measure("BloodMagic @Injectable warm read", operations: peerOperations, baseline: sharedFloor) { count in
    for _ in 0..<count { blackHole(serviceContainer.service) }
}
reads.measure(
    "BloodMagic @Injectable singleton first read, container made beforehand", operations: peerOperations,
    baseline: sharedFloor,
    setup: { singletonContainers = (0..<peerOperations).map { _ in SingletonContainer() } }
) { count in
    singletonContainers.withUnsafeBufferPointer { containers in
        for index in 0..<count { blackHole(containers[index].clock) }
    }
}
reads.printReport()

// MARK: - Scopes (issue 29): BloodMagic beside Swinject 2.10
// A Car whose initializer resolves its Engine twice: with a graph-scoped
// Engine both are one object (one made per resolution), with an
// instance/transient one two are made. Goal: graph scope costs at most
// 1.1x the instance scope. Then a weak-scoped object that stays held, and a
// provider read (a new value each time), beside Swinject's `.weak` and `Provider`.
final class ScopedEngine {}
final class ScopedCar {
    let engine: ScopedEngine
    let spare: ScopedEngine
    init(engine: ScopedEngine, spare: ScopedEngine) {
        self.engine = engine
        self.spare = spare
    }
}
final class WeakScopedService {}
final class ProvidingContainer {
    // Both libraries name their provider Provider: qualified, as an app importing both would.
    @BloodMagic.Provider(registry: benchRegistry) var manager: RequestManager
}

func scopedCarRegistry(_ scope: SpellScope) -> Registry {
    let registry = Registry()
    registry.register(ScopedEngine.self, scope: scope) { _ in ScopedEngine() }
    registry.register(ScopedCar.self) { sender in
        ScopedCar(engine: try registry.resolve(ScopedEngine.self, for: sender, property: "engine"),
                  spare: try registry.resolve(ScopedEngine.self, for: sender, property: "spare"))
    }
    registry.register(WeakScopedService.self, scope: .weak) { _ in WeakScopedService() }
    return registry
}
func scopedCarContainer(_ scope: ObjectScope) -> Container {
    let container = Container()
    container.register(ScopedEngine.self) { _ in ScopedEngine() }.inObjectScope(scope)
    container.register(ScopedCar.self) { resolver in
        ScopedCar(engine: resolver.resolve(ScopedEngine.self)!, spare: resolver.resolve(ScopedEngine.self)!)
    }.inObjectScope(.transient)
    container.register(WeakScopedService.self) { _ in WeakScopedService() }.inObjectScope(.weak)
    return container
}
let instanceCars = scopedCarRegistry(.instance)
let graphCars = scopedCarRegistry(.graph)
let transientSwinjectCars = scopedCarContainer(.transient)
let graphSwinjectCars = scopedCarContainer(.graph)
swinject.register(RequestManager.self, name: "provided") { _ in RequestManager() }.inObjectScope(.transient)

let scopes = BenchmarkSuite("scopes beside Swinject 2.10", rounds: 7)
let scopeOperations = 300_000
let instanceCarName = "BloodMagic registry.resolve Car, instance-scoped Engine x2"
scopes.measure(instanceCarName, operations: scopeOperations) { count in
    for _ in 0..<count { blackHole(try! instanceCars.resolve(ScopedCar.self, for: sender, property: "car")) }
}
scopes.measure("BloodMagic registry.resolve Car, graph-scoped Engine x2", operations: scopeOperations,
               baseline: instanceCarName, goal: 1.1) { count in
    for _ in 0..<count { blackHole(try! graphCars.resolve(ScopedCar.self, for: sender, property: "car")) }
}
let transientSwinjectName = "Swinject 2.10 resolve Car, transient Engine x2"
scopes.measure(transientSwinjectName, operations: scopeOperations) { count in
    for _ in 0..<count { blackHole(transientSwinjectCars.resolve(ScopedCar.self)) }
}
scopes.measure("Swinject 2.10 resolve Car, graph-scoped Engine x2", operations: scopeOperations,
               baseline: transientSwinjectName) { count in
    for _ in 0..<count { blackHole(graphSwinjectCars.resolve(ScopedCar.self)) }
}
let heldBloodMagic = try! graphCars.resolve(WeakScopedService.self, for: sender, property: "service")
let weakSwinjectName = "Swinject 2.10 resolve, .weak object held"
let heldSwinject = graphSwinjectCars.resolve(WeakScopedService.self)
scopes.measure(weakSwinjectName, operations: scopeOperations) { count in
    for _ in 0..<count { blackHole(graphSwinjectCars.resolve(WeakScopedService.self)) }
}
scopes.measure("BloodMagic registry.resolve, .weak object held", operations: scopeOperations,
               baseline: weakSwinjectName) { count in
    for _ in 0..<count { blackHole(try! graphCars.resolve(WeakScopedService.self, for: sender, property: "service")) }
}
blackHole(heldBloodMagic)
blackHole(heldSwinject)
let swinjectProvider = swinject.resolve(Swinject.Provider<RequestManager>.self, name: "provided")!
let providerSwinjectName = "Swinject 2.10 Provider<T>.instance"
scopes.measure(providerSwinjectName, operations: scopeOperations) { count in
    for _ in 0..<count { blackHole(swinjectProvider.instance) }
}
let providing = identity(ProvidingContainer())
scopes.measure("BloodMagic @Provider read", operations: scopeOperations, baseline: providerSwinjectName) { count in
    for _ in 0..<count { blackHole(providing.manager) }
}
scopes.printReport()
