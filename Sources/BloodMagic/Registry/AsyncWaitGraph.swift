/// Which makings of async values wait for which, across tasks, so that a
/// dependency cycle between tasks is an error, not two tasks waiting for
/// each other forever (the async counterpart of ``ResolutionWaitGraph``).
///
/// Task 1 makes `A`, whose initializer awaits `B`; meanwhile task 2 makes
/// `B`, whose initializer awaits `A`. Each making is a node (its
/// ``AsyncMakingChain`` link, unique to that making); a task that waits for
/// a place another task is making records, for every making on its chain
/// (its own and the ones it runs inside of, in its task or a parent task),
/// an edge to that place. Before it waits, it follows the edges from the
/// place: the place's current maker, the places that maker's making waits
/// for, their makers, and so on. When that walk reaches a making on its
/// own chain, every making on the loop waits for the next and none can
/// finish: it throws ``SpellError/dependencyCycle(chain:)`` instead of
/// waiting. Its own making then fails with that error, which the task
/// waiting for it gets too, and so on around the loop.
///
/// Sound: an edge exists only while its waiter is registered as waiting
/// (it is recorded and removed under the lock of the slot it waits on,
/// in the same critical section as the waiter itself), and a place's maker
/// only while that making runs; a walk sees one consistent graph (one
/// lock), so every edge it follows is a wait in progress, and a loop of
/// them cannot end. Makings are nodes, not places: a task left over from an
/// earlier making of the same place (an unstructured task that inherited
/// its chain) does not stand for the current making.
///
/// Only tasks that make something while they wait record edges; a wait
/// costs one more lock and a walk of the edges reachable from the place
/// (O(waits in progress × chain length), on the waiting path only; a ready
/// value is read before any of this).
enum AsyncWaitGraph {
    private struct Target {
        let place: ObjectIdentifier
        let label: String
    }

    private struct State {
        /// Each place being made, to its making.
        var makers: [ObjectIdentifier: ObjectIdentifier] = [:]
        /// Each making, to the places its task (or a task inside it) waits for, by wait.
        var waits: [ObjectIdentifier: [UInt64: Target]] = [:]
        /// Each wait in progress, to the makings it recorded an edge from.
        var edgesOfWait: [UInt64: [ObjectIdentifier]] = [:]
    }

    private static let state = Lock<State>(State())

    /// Notes that `making` (a new chain link) makes `place` from now on.
    static func beginMaking(_ place: ObjectIdentifier, by making: AsyncMakingChain) {
        state.withLock { $0.makers[place] = ObjectIdentifier(making) }
    }

    /// Notes that the making of `place` is over.
    static func endMaking(_ place: ObjectIdentifier) {
        _ = state.withLock { $0.makers.removeValue(forKey: place) }
    }

    /// Records that the task whose makings are `chain` waits (wait number
    /// `wait`) for `place` (`label`), which another making is making; or,
    /// when that would close a loop, records nothing and returns the loop's
    /// labels, from the making on `chain` it comes back to, round to it.
    static func beginWait(_ wait: UInt64, chain: AsyncMakingChain, for place: ObjectIdentifier, label: String) -> [String]? {
        let links = chain.links
        var onChain: [ObjectIdentifier: Int] = [:]
        for (index, link) in links.enumerated() { onChain[ObjectIdentifier(link)] = index }
        return state.withLock { state -> [String]? in
            // Depth-first from the place, each making visited once.
            var pending: [(place: ObjectIdentifier, path: [String])] = [(place, [label])]
            var visited: Set<ObjectIdentifier> = []
            while let (next, path) = pending.popLast() {
                guard let maker = state.makers[next], visited.insert(maker).inserted else { continue }
                if let index = onChain[maker] {
                    return links[index...].map(\.label) + path
                }
                for target in state.waits[maker]?.values ?? [:].values {
                    pending.append((target.place, path + [target.label]))
                }
            }
            let makings = links.map(ObjectIdentifier.init)
            for making in makings {
                state.waits[making, default: [:]][wait] = Target(place: place, label: label)
            }
            state.edgesOfWait[wait] = makings
            return nil
        }
    }

    /// Removes the edges of `wait` (none when it recorded none).
    static func endWait(_ wait: UInt64) {
        state.withLock { state in
            guard let makings = state.edgesOfWait.removeValue(forKey: wait) else { return }
            for making in makings {
                state.waits[making]?.removeValue(forKey: wait)
                if state.waits[making]?.isEmpty == true { state.waits.removeValue(forKey: making) }
            }
        }
    }
}
