import Synchronization

/// A singleton's storage: the value is made once, under the slot's lock,
/// then published lock-free.
///
/// The value lives in a box the slot retains, published once with a release
/// store of its address; a read is an acquire load of that address, so a
/// made singleton is read without a lock and, for the type it was registered
/// with, without a cast (``typedValue(_:)``). The box never changes once
/// published, which is what makes the unretained read safe: the slot (and so
/// the box) lives as long as its initializer record, and every reader holds
/// that record through the lookup it resolved with.
///
/// One slot per registration: a registration that replaces another (a new
/// record) has a new, empty slot, so its singleton is made anew.
@usableFromInline
final class SingletonSlot: Sendable {
    /// The published box's address (retained by the slot), or 0 until made.
    @usableFromInline let published = Atomic<UInt>(0)
    /// Held while the value is made, so that it is made once.
    private let making = Lock<Void>(())

    init() {}

    deinit {
        if let raw = UnsafeRawPointer(bitPattern: published.load(ordering: .acquiring)) {
            Unmanaged<SingletonBox>.fromOpaque(raw).release()
        }
    }

    /// The value if it has been made already.
    var existing: Any? {
        guard let raw = UnsafeRawPointer(bitPattern: published.load(ordering: .acquiring)) else { return nil }
        let value: Any = Unmanaged<SingletonBox>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.anyValue }
        return value
    }

    /// The value, typed, if it has been made already. Only for the type the
    /// record's typed initializer returns, which makes every box of this
    /// slot a `TypedSingletonBox<Value>` (see `InitializerRecord.makeBox`).
    @inlinable
    func typedValue<Value>(_: Value.Type) -> Value? {
        guard let raw = UnsafeRawPointer(bitPattern: published.load(ordering: .acquiring)) else { return nil }
        return Unmanaged<TypedSingletonBox<Value>>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.value }
    }

    /// Publishes `box` as the made value, unless one was made already (a
    /// reload carrying a singleton's value over to its new registration).
    func preset(_ box: SingletonBox) {
        making.withLock { _ in
            guard published.load(ordering: .acquiring) == 0 else { return }
            published.store(UInt(bitPattern: Unmanaged.passRetained(box).toOpaque()), ordering: .releasing)
        }
    }

    /// The value, made by `make` unless another call made it first.
    func get(_ make: () throws -> SingletonBox) throws -> Any {
        try making.withLock { _ throws in
            guard published.load(ordering: .acquiring) == 0 else { return }
            let box = try make()
            published.store(UInt(bitPattern: Unmanaged.passRetained(box).toOpaque()), ordering: .releasing)
        }
        return existing.unsafelyUnwrapped
    }
}
