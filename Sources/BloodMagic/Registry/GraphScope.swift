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
        // The generic part is kept thin (callers are often unspecialized:
        // a typed initializer wrapped at registration); the list is worked
        // on by the non-generic helpers below.
        let stack = ResolutionStack.currentPointer
        switch lookUp(on: stack) {
        case .outside:
            return try make()
        case .found(let kept):
            if let value = kept as? Value { return value }
            return try make()
        case .missing:
            let value = try make()
            keep(value, on: stack)
            return value
        }
    }

    /// What the thread's top-level resolution holds for this registration.
    @usableFromInline
    enum Lookup {
        /// No resolution runs on the thread: nothing to share with.
        case outside
        /// None made yet in this resolution.
        case missing
        /// The value made earlier in this resolution.
        case found(Any)
    }

    @usableFromInline
    func lookUp(on pointer: UnsafeMutableRawPointer) -> Lookup {
        ResolutionStack.borrow(pointer) { stack in
            guard stack.resolvingRegistry != nil else { return .outside }
            guard stack.graphCount != 0 else { return .missing }
            if stack.graphFirstKey === self, let first = stack.graphFirstValue { return .found(first) }
            for entry in stack.graphValues where entry.key === self { return .found(entry.value) }
            return .missing
        }
    }

    /// Keeps `value` until the top-level resolution, still running (its end
    /// is what empties the list), ends.
    @usableFromInline
    func keep(_ value: Any, on pointer: UnsafeMutableRawPointer) {
        ResolutionStack.borrow(pointer) { stack in
            guard stack.resolvingRegistry != nil else { return }
            // Most resolutions make one graph value: it needs no list.
            if stack.graphCount == 0 {
                stack.graphFirstKey = self
                stack.graphFirstValue = value
            } else {
                stack.graphValues.append((self, value))
            }
            stack.graphCount += 1
        }
    }
}

/// A graph-scoped registration's typed initializer (registered from Swift
/// with its type): a spell of exactly that type reads it from
/// `CachedResolution.makeTyped`, where the code below is specialized for
/// the spell's type. Wrapped in a closure at registration instead, it ran
/// unspecialized generic code and cost twice a first read.
@usableFromInline
final class GraphTypedInitializer<Value>: TypedInitializing {
    @usableFromInline let key: GraphScopeKey
    @usableFromInline let make: @Sendable (AnyObject) throws -> Value
    @usableFromInline let valueType = ObjectIdentifier(Value.self)

    init(key: GraphScopeKey, make: @escaping @Sendable (AnyObject) throws -> Value) {
        self.key = key
        self.make = make
    }

    /// The value of this top-level resolution, made by the initializer for
    /// `sender` if none was yet (see ``GraphScopeKey/value(_:)``, which the
    /// type-erased path uses with the same key).
    @inlinable
    func value(for sender: AnyObject) throws -> Value {
        let stack = ResolutionStack.currentPointer
        switch key.lookUp(on: stack) {
        case .outside:
            return try make(sender)
        case .found(let kept):
            if let value = Registry.exactly(kept, as: Value.self) ?? (kept as? Value) { return value }
            return try make(sender)
        case .missing:
            let value = try make(sender)
            key.keep(value, on: stack)
            return value
        }
    }

    @usableFromInline
    func makeSingletonBox(for sender: AnyObject) throws -> SingletonBox {
        TypedSingletonBox(try value(for: sender))
    }

    @usableFromInline
    func singletonBox(holding value: Any) -> SingletonBox? {
        (value as? Value).map(TypedSingletonBox.init)
    }

    @usableFromInline
    func kept(by storage: ScopeStorage) -> any TypedInitializing {
        self
    }

    @usableFromInline
    var isGraphScoped: Bool { true }
}

extension ResolutionStack {
    /// Forgets the graph-scoped values of the top-level resolution that
    /// just ended.
    ///
    /// The list is swapped with a spare one before its values are released,
    /// so that a value's deinit that resolves (a top-level resolution of its
    /// own) finds an empty list to use, not one being emptied; both keep
    /// their storage, so a resolution's first graph value allocates nothing.
    /// (A deinit that runs while an earlier one is being released drops its
    /// own list instead of swapping into the spare being emptied.)
    @usableFromInline @inline(never)
    func endGraph() {
        let count = graphCount
        graphCount = 0
        // The first value leaves its slot before it is released.
        graphFirstKey = nil
        _ = graphFirstValue.take()
        guard count > 1 else { return }
        if endingGraph {
            var ended: [(key: GraphScopeKey, value: Any)] = []
            swap(&ended, &graphValues)
            return
        }
        endingGraph = true
        swap(&graphValues, &graphSpare)
        graphSpare.removeAll(keepingCapacity: true)
        endingGraph = false
    }
}
