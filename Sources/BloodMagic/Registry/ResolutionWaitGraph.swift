import Synchronization

/// A spell cell that another thread may wait on: its state word tells which
/// thread produces its value (see ``ResolvingCell``'s protocol).
protocol ProducedCell: AnyObject, SpellCellNaming {
    /// The cell's state word now: a producing thread's token with the phase
    /// in its low bits, or unresolved / published.
    var stateWord: UInt { get }
}

/// Which threads wait for a value that another thread is producing, so that
/// a dependency cycle that runs across threads is an error, not a deadlock.
///
/// Thread A produces `P.a`, whose initializer reads `Q.b`; meanwhile thread B
/// produces `Q.b`, whose initializer reads `P.a`. Each waits for the other
/// forever. On one thread the tracker reports such a cycle; across threads,
/// each waiter records an edge here (waiter → the producer of the cell it
/// waits on) and follows the producers' own edges: when the chain comes back
/// to the waiter, every thread on it waits for the next and none can go on,
/// so the waiter throws the cycle error (its own production then fails, and
/// the others go on or find the same cycle).
///
/// Only the contended cold path uses this, after a waiter has spun a while;
/// one lock keeps the graph consistent. Every cell and object an edge names
/// is alive while the edge exists: its waiter holds them, and removes its
/// edge before it stops waiting.
enum ResolutionWaitGraph {
    /// A waiting thread's edge.
    ///
    /// `@unchecked Sendable` invariant: the references are only used under
    /// the graph's lock, while the waiter that recorded the edge keeps them
    /// alive (it removes the edge before it stops waiting); the cell is read
    /// through its atomic state word, and the object only to name it in the
    /// error.
    struct Edge: @unchecked Sendable {
        /// The token of the thread producing the cell.
        let producer: UInt
        /// The cell waited on and its container; see the type's note on lifetimes.
        unowned(unsafe) let cell: any ProducedCell
        unowned(unsafe) let object: AnyObject
        let keyPath: AnyKeyPath?

        /// Whether `producer` still produces the cell.
        var isCurrent: Bool {
            let word = cell.stateWord
            return word & ~producingPhaseMask == producer && word & producingPhaseMask >= 2
        }

        /// "Container.property" of the cell.
        var label: String {
            "\(SpellNames.containerName(of: object)).\(cell.propertyName(keyPath, in: object))"
        }
    }

    /// The low bits of a state word that hold the phase (see ``ResolvingCell``).
    static let producingPhaseMask: UInt = 3

    private static let edges = Lock<[UInt: Edge]>([:])

    /// Records that the thread `waiter` waits for `cell` of `object`, which
    /// the thread `producer` is producing. Returns false, recording nothing,
    /// when `producer` no longer produces it (the caller looks again).
    ///
    /// - Throws: `SpellError.dependencyCycle` when the producers, edge by
    ///   edge, wait for a cell that `waiter` produces.
    static func beginWait(
        waiter: UInt, producer: UInt, cell: any ProducedCell, object: AnyObject, keyPath: AnyKeyPath?
    ) throws -> Bool {
        try edges.withLock { edges in
            let edge = Edge(producer: producer, cell: cell, object: object, keyPath: keyPath)
            guard edge.isCurrent else { return false }
            var chain = [edge]
            var next = producer
            while next != waiter {
                // Stale edges (a producer that has moved on) end the chain.
                guard chain.count <= edges.count, let step = edges[next], step.isCurrent else {
                    edges[waiter] = edge
                    return true
                }
                chain.append(step)
                next = step.producer
            }
            // The last cell of the chain is one `waiter` produces: it needs
            // the first, which needs the next, and so on back to it.
            let labels = chain.map(\.label)
            throw SpellError.dependencyCycle(chain: [labels[labels.count - 1]] + labels)
        }
    }

    /// Removes the edge of `waiter`.
    static func endWait(waiter: UInt) {
        _ = edges.withLock { $0.removeValue(forKey: waiter) }
    }
}
