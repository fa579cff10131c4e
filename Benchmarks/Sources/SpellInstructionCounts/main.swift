// Instruction counts of a spell's first read, for a machine too busy for
// wall-clock figures. Run it twice under callgrind, with and without the
// reads; the difference divided by the count is the cost of one read:
//
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//     .build/release/SpellInstructionCounts first-read 100000 skip
//   valgrind ... SpellInstructionCounts first-read 100000 read
//
// Modes: `first-read` (containers made beforehand, then each one's first
// @Injectable read, as SpellBenchmarks' goal row), `new-and-read` (making
// the container is part of the measured work), `warm-read` (one container,
// read again and again), `resolve` (`registry.resolve`), `singleton-first-read`
// (as `first-read`, for a singleton made beforehand); issue 29:
// `named-first-read` (as `first-read`, for `@Injectable(named:)`),
// `resolve-named` (`registry.resolve(named:)`), `resolve-all-10`
// (`registry.resolveAll` of 10 registrations), `resolve-arguments`
// (`registry.resolve(arguments:)` with one Int).
// Scopes (issue 29): `graph-first-read` (as `first-read`, the registration graph-scoped: to
// compare with `first-read`, goal <= 1.1x), `graph-shared-first-read` and
// `instance-shared-first-read` (a first read whose initializer resolves a
// graph- or instance-scoped Engine twice), `custom-first-read` (a
// custom-scoped value made beforehand: as `singleton-first-read`),
// `weak-first-read` (a weak-scoped object held meanwhile) and
// `provider-read` (a @Provider read, a new value each time).
// Issue 30: `async-resolve-ready` (`try await registry.resolve(T.self)` of an
// async singleton made beforehand) against `resolve-singleton`
// (`registry.resolve(T.self, for:property:)` of a synchronous singleton made
// beforehand): goal <= 1.5x.
import BenchSupport
import BloodMagic
import Foundation

final class RequestManager {
    var requests = 0
}

final class InjectableContainer {
    @Injectable(registry: countRegistry) var manager: RequestManager
}

final class CurrentRegistryContainer {
    @Injectable var manager: RequestManager
}

final class SharedClock: Sendable {
    let zone = 0
}

final class SingletonContainer {
    @Injectable(registry: countRegistry) var clock: SharedClock
}

extension SpellName<RequestManager> {
    static var primary: Self { "primary" }
}

final class NamedInjectableContainer {
    @Injectable(named: .primary, registry: countRegistry) var manager: RequestManager
}

final class ArgumentModel {
    let id: Int
    init(id: Int) { self.id = id }
}

protocol CountedPlugin: AnyObject {}
final class CountedPluginImpl: CountedPlugin {}

final class GraphManager {
    var requests = 0
}

final class GraphContainer {
    @Injectable(registry: countRegistry) var manager: GraphManager
}

final class Engine {}

final class Car {
    let engine: Engine
    let spare: Engine
    init(engine: Engine, spare: Engine) {
        self.engine = engine
        self.spare = spare
    }
}

final class GraphCarContainer {
    @Injectable(registry: graphRegistry) var car: Car
}

final class InstanceCarContainer {
    @Injectable(registry: instanceRegistry) var car: Car
}

final class SessionCart: Sendable {}

final class CustomScopeContainer {
    @Injectable(registry: countRegistry) var cart: SessionCart
}

final class WeakService {}

final class WeakContainer {
    @Injectable(registry: countRegistry) var service: WeakService
}

final class ProviderContainer {
    @Provider(registry: countRegistry) var manager: RequestManager
}

let countRegistry = Registry()
countRegistry.register(RequestManager.self, named: .primary) { _ in RequestManager() }
countRegistry.register(ArgumentModel.self, arguments: Int.self) { _, id in ArgumentModel(id: id) }
for index in 0..<10 {
    countRegistry.register((any CountedPlugin).self, named: SpellName("plugin \(index)")) { _ in CountedPluginImpl() }
}
countRegistry.register(RequestManager.self) { _ in RequestManager() }
countRegistry.register(SharedClock.self, scope: .singleton) { _ in SharedClock() }
countRegistry.register(GraphManager.self, scope: .graph) { _ in GraphManager() }
countRegistry.register(SessionCart.self, scope: .custom("session")) { _ in SessionCart() }
countRegistry.register(WeakService.self, scope: .weak) { _ in WeakService() }
blackHole(SingletonContainer().clock)
blackHole(CustomScopeContainer().cart)
let heldWeak = WeakContainer().service

final class AsyncPool: Sendable {}
countRegistry.registerAsync(AsyncPool.self) { AsyncPool() }

/// `count` awaited resolutions of the async singleton (made before).
func resolveReadyAsync(_ count: Int, reads: Bool) async {
    blackHole(try! await countRegistry.resolve(AsyncPool.self))
    if reads { for _ in 0..<count { blackHole(try! await countRegistry.resolve(AsyncPool.self)) } }
}
Registry.shared.register(RequestManager.self) { _ in RequestManager() }

/// A Car whose initializer resolves its Engine twice, graph- or instance-scoped.
func carRegistry(engineScope: SpellScope) -> Registry {
    let registry = Registry()
    registry.register(Engine.self, scope: engineScope) { _ in Engine() }
    registry.register(Car.self) { sender in
        Car(engine: try registry.resolve(Engine.self, for: sender, property: "engine"),
            spare: try registry.resolve(Engine.self, for: sender, property: "spare"))
    }
    return registry
}
let graphRegistry = carRegistry(engineScope: .graph)
let instanceRegistry = carRegistry(engineScope: .instance)

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]) else {
    print("usage: SpellInstructionCounts first-read|singleton-first-read|new-and-read|warm-read|resolve|first-read-current|named-first-read|resolve-named|resolve-all-10|resolve-arguments|graph-first-read|graph-shared-first-read|instance-shared-first-read|custom-first-read|weak-first-read|provider-read|resolve-singleton|async-resolve-ready COUNT read|skip")
    exit(2)
}
let reads = arguments[3] == "read"

switch arguments[1] {
case "first-read":
    let containers = (0..<count).map { _ in identity(InjectableContainer()) }
    if reads { for container in containers { blackHole(container.manager) } }
    blackHole(containers)
case "singleton-first-read":
    let containers = (0..<count).map { _ in identity(SingletonContainer()) }
    if reads { for container in containers { blackHole(container.clock) } }
    blackHole(containers)
case "first-read-current":
    let containers = (0..<count).map { _ in identity(CurrentRegistryContainer()) }
    if reads { for container in containers { blackHole(container.manager) } }
    blackHole(containers)
case "new-and-read":
    if reads {
        for _ in 0..<count {
            let container = InjectableContainer()
            blackHole(container.manager)
        }
    }
case "warm-read":
    let container = identity(InjectableContainer())
    blackHole(container.manager)
    if reads { for _ in 0..<count { blackHole(container.manager) } }
case "resolve":
    let sender = identity(RequestManager())
    if reads { for _ in 0..<count { blackHole(try! countRegistry.resolve(RequestManager.self, for: sender, property: "manager")) } }
case "named-first-read":
    let containers = (0..<count).map { _ in identity(NamedInjectableContainer()) }
    if reads { for container in containers { blackHole(container.manager) } }
    blackHole(containers)
case "resolve-named":
    let sender = identity(RequestManager())
    if reads {
        for _ in 0..<count { blackHole(try! countRegistry.resolve(RequestManager.self, named: .primary, for: sender, property: "manager")) }
    }
case "resolve-arguments":
    let sender = identity(RequestManager())
    if reads {
        for index in 0..<count { blackHole(try! countRegistry.resolve(ArgumentModel.self, arguments: index, for: sender, property: "model")) }
    }
case "resolve-all-10":
    let sender = identity(RequestManager())
    if reads { for _ in 0..<count { blackHole(try! countRegistry.resolveAll((any CountedPlugin).self, for: sender)) } }
case "graph-first-read":
    let containers = (0..<count).map { _ in identity(GraphContainer()) }
    if reads { for container in containers { blackHole(container.manager) } }
    blackHole(containers)
case "graph-shared-first-read":
    let containers = (0..<count).map { _ in identity(GraphCarContainer()) }
    if reads { for container in containers { blackHole(container.car) } }
    blackHole(containers)
case "instance-shared-first-read":
    let containers = (0..<count).map { _ in identity(InstanceCarContainer()) }
    if reads { for container in containers { blackHole(container.car) } }
    blackHole(containers)
case "custom-first-read":
    let containers = (0..<count).map { _ in identity(CustomScopeContainer()) }
    if reads { for container in containers { blackHole(container.cart) } }
    blackHole(containers)
case "weak-first-read":
    let containers = (0..<count).map { _ in identity(WeakContainer()) }
    if reads { for container in containers { blackHole(container.service) } }
    blackHole(containers)
    blackHole(heldWeak)
case "provider-read":
    let container = identity(ProviderContainer())
    if reads { for _ in 0..<count { blackHole(container.manager) } }
case "resolve-singleton":
    let sender = identity(RequestManager())
    if reads { for _ in 0..<count { blackHole(try! countRegistry.resolve(SharedClock.self, for: sender, property: "clock")) } }
case "async-resolve-ready":
    // In a task, the main thread waiting: a top-level `await` would make
    // every mode's main async (and callgrind crashes in dispatch's main);
    // detached: a task of the main actor would wait for this thread.
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await resolveReadyAsync(count, reads: reads)
        done.signal()
    }
    done.wait()
default:
    print("unknown mode \(arguments[1])")
    exit(2)
}
