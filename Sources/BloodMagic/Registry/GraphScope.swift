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
    /// A top-level resolution makes few graph-scoped values: the first is
    /// kept in two fields of the thread's stack (no list, no allocation),
    /// the others in a list scanned linearly (O(n) per read, n the
    /// graph-scoped registrations that resolution used), which costs less
    /// than hashing for the handful a resolution makes.
    ///
    /// Inlinable, so that the value is stored and read back specialized to
    /// `Value` in the caller (`GraphTypedInitializer`): no `Any` is copied
    /// on the way, and the stack is borrowed for the whole read.
    @inlinable
    func value<Value>(_ make: () throws -> Value) throws -> Value {
        try value(objects: false, on: ResolutionStack.currentPointer, whole: false, make)
    }

    /// ``value(_:)``, on the calling thread's stack `pointer`; with
    /// `objects`, `Value` is a class type (see `GraphTypedInitializer.objects`),
    /// and the first value is kept as an object: retained, with no
    /// existential box to copy. Always inlined, so that `make` is too: a
    /// closure passed out of line had its captures (the sender, the
    /// initializer) retained for the call.
    ///
    /// `whole`: the caller's `whileResolving` runs nothing but this read
    /// (`CachedResolution.makeTyped`). When that is the top-level
    /// resolution (depth 1), the value is the whole resolution's: nothing
    /// resolves after it before the resolution ends and forgets its graph
    /// values, and whatever its initializer resolves runs before the value
    /// exists. So it is not kept: no retains, and nothing to forget (a
    /// top-level graph read costs about an instance-scoped one).
    @inlinable @inline(__always)
    func value<Value>(
        objects: Bool, on pointer: UnsafeMutableRawPointer, whole: Bool, _ make: () throws -> Value
    ) throws -> Value {
        try ResolutionStack.borrow(pointer) { stack in
            let depth = stack.depth
            guard depth != 0, !(whole && depth == 1) else { return try make() }
            if stack.graphCount != 0 {
                if objects, stack.graphFirstKey === self, let object = stack.graphFirstObject {
                    return unsafeBitCast(object, to: Value.self)
                }
                if let kept = stack.graphValue(of: self) {
                    if let value = Registry.exactly(kept, as: Value.self) ?? (kept as? Value) { return value }
                }
            }
            let value = try make()
            if objects && stack.graphCount == 0 {
                // Most resolutions make one graph value: it needs no list.
                stack.graphFirstKey = self
                stack.graphFirstObject = unsafeBitCast(value, to: AnyObject.self)
                stack.graphCount = 1
            } else {
                stack.keepGraphValue(value, of: self)
            }
            return value
        }
    }
}

extension ResolutionStack {
    /// The graph-scoped value `key`'s registration made in the thread's
    /// top-level resolution, if any.
    @usableFromInline
    func graphValue(of key: GraphScopeKey) -> Any? {
        if graphFirstKey === key, let object = graphFirstObject { return object }
        for entry in graphValues where entry.key === key { return entry.value }
        return nil
    }

    /// Keeps a graph-scoped value in the list (see `GraphScopeKey.value`).
    @usableFromInline
    func keepGraphValue(_ value: Any, of key: GraphScopeKey) {
        graphValues.append((key, value))
        graphCount += 1
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
    /// Whether `Value` is a class type (a reference, one word), whose
    /// values the thread's stack keeps as objects (see `GraphScopeKey.value(objects:_:)`).
    @usableFromInline let objects = Value.self is AnyObject.Type && MemoryLayout<Value>.size == MemoryLayout<AnyObject>.size

    init(key: GraphScopeKey, make: @escaping @Sendable (AnyObject) throws -> Value) {
        self.key = key
        self.make = make
    }

    /// The value of this top-level resolution, made by the initializer for
    /// `sender` if none was yet (see ``GraphScopeKey/value(_:)``, which the
    /// type-erased path uses with the same key). `pointer` is the calling
    /// thread's stack; `whole` as in ``GraphScopeKey/value(objects:on:whole:_:)``.
    @inlinable
    func value(for sender: AnyObject, on pointer: UnsafeMutableRawPointer, whole: Bool) throws -> Value {
        // The key and the initializer are borrowed from `self`, which the
        // caller holds: nothing is retained for the call.
        try Unmanaged.passUnretained(key)._withUnsafeGuaranteedRef { key in
            try key.value(objects: objects, on: pointer, whole: whole) { try call(sender) }
        }
    }

    /// Calls the initializer, its closure borrowed from `self`.
    @inlinable
    func call(_ sender: AnyObject) throws -> Value {
        try make(sender)
    }

    @usableFromInline
    func makeSingletonBox(for sender: AnyObject) throws -> SingletonBox {
        TypedSingletonBox(try value(for: sender, on: ResolutionStack.currentPointer, whole: false))
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
        _ = graphFirstObject.take()
        guard count > 1 || !graphValues.isEmpty else { return }
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
