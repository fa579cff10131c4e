/// The identity of one graph-scoped registration: the key its values are
/// kept under during a top-level resolution (see ``SpellScope/graph``).
@usableFromInline
final class GraphScopeKey: Sendable {
    /// The registered type's name, for the cycle tracker's label.
    let label: String

    init(label: String) {
        self.label = label
    }

    /// The value this registration made during the calling thread's
    /// top-level resolution, else one made by `make` and kept until that
    /// resolution ends. Outside any resolution (nothing to share with), a
    /// value made by `make` and not kept.
    ///
    /// A top-level resolution makes few graph-scoped values: they are kept
    /// in a list scanned linearly (O(n) per read, n the graph-scoped
    /// registrations that resolution used), which costs less than hashing
    /// for the handful a resolution makes.
    func value<Value>(_ make: () throws -> Value) throws -> Value {
        let pointer = ResolutionStack.currentPointer
        let found: Value?? = ResolutionStack.borrow(pointer) { stack in
            guard stack.resolvingRegistry != nil else { return .some(nil) }
            for entry in stack.graphValues where entry.key === self {
                return .some(Registry.exactly(entry.value, as: Value.self) ?? (entry.value as? Value))
            }
            return nil
        }
        switch found {
        case .some(.some(let value)):
            return value
        case .some(.none):
            return try make()
        case .none:
            let value = try make()
            ResolutionStack.borrow(pointer) { stack in
                // Made during this top-level resolution, which is still running
                // (its end is what empties the list).
                guard stack.resolvingRegistry != nil else { return }
                stack.graphValues.append((self, value))
                stack.graphCount = stack.graphValues.count
            }
            return value
        }
    }
}

extension ResolutionStack {
    /// Forgets the graph-scoped values of the top-level resolution that
    /// just ended (keeping the list's storage for the next one).
    @usableFromInline
    func endGraph() {
        graphCount = 0
        // Out of the list before they are released: a value's deinit that
        // resolves finds an empty list, not one being emptied.
        var ended: [(key: GraphScopeKey, value: Any)] = []
        swap(&ended, &graphValues)
        ended.removeAll(keepingCapacity: true)
        if graphValues.isEmpty { swap(&ended, &graphValues) }
    }
}
