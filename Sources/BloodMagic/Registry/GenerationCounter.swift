import Synchronization

/// A monotonically increasing counter, readable without a lock.
@usableFromInline
package final class GenerationCounter: Sendable {
    @usableFromInline let value = Atomic<UInt64>(0)
    private static let serials = Atomic<UInt64>(0)
    /// The counters of registries layered over this one (Registry+Layers),
    /// bumped with it so that their lookup caches, which may hold this
    /// registry's records, are dropped too. Weak: a test's registry goes
    /// away with its test.
    private let dependents = Lock<[WeakGenerationCounter]>([])
    /// Whether `dependents` was ever non-empty (one relaxed load per bump
    /// for a registry nothing is layered over).
    private let hasDependents = Atomic<Bool>(false)

    /// The current generation (acquire: state changed before a bump is visible).
    @inlinable
    package var current: UInt64 { value.load(ordering: .acquiring) }

    /// Marks a change.
    func bump() {
        value.add(1, ordering: .releasing)
        if hasDependents.load(ordering: .relaxed) { bumpDependents() }
    }

    /// Bumps the counters layered over this one (and theirs, through their
    /// own `bump`). Only a counter's own lock is taken, parent before child:
    /// a layer's counter never bumps its parent, so there is no cycle.
    private func bumpDependents() {
        let alive = dependents.withLock { list -> [GenerationCounter] in
            list.removeAll { $0.counter == nil }
            return list.compactMap(\.counter)
        }
        for counter in alive { counter.bump() }
    }

    /// Makes `dependent` move whenever this counter does. O(layers alive):
    /// the dead ones are dropped here and on each bump.
    func addDependent(_ dependent: GenerationCounter) {
        dependents.withLock { list in
            list.removeAll { $0.counter == nil }
            list.append(WeakGenerationCounter(counter: dependent))
        }
        hasDependents.store(true, ordering: .relaxed)
    }

    /// A new registry serial number.
    static func nextRegistrySerial() -> UInt64 {
        serials.add(1, ordering: .relaxed).newValue
    }
}

/// A layer's counter, held weakly by its parent's.
private struct WeakGenerationCounter: Sendable {
    weak var counter: GenerationCounter?
}
