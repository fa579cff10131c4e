// Spell benchmarks: warm reads against a plain stored property, and cold
// resolution against Swinject 2.10's transient resolve, in the same run.
import BenchSupport
import BloodMagic
import Swinject

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

suite.measure("for scale: new plain container + RequestManager()", operations: coldOperations, baseline: "Swinject 2.10 transient resolve") { count in
    for _ in 0..<count {
        let container = identity(EmptyContainer())
        container.manager = RequestManager()
        blackHole(container)
    }
}

suite.printReport()
batchSuite.printReport()
