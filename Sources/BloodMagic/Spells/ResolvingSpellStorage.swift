/// The storage of a resolving spell's property wrapper: its cell and the
/// value, kept inline in the container object.
@usableFromInline
protocol ResolvingSpellStorage {
    /// The property's type.
    associatedtype Value
    /// The coordination cell.
    var cell: ResolvingCell<Value> { get }
    /// The published value (meaningful only while the cell says so).
    var value: Value? { get set }
}

extension ResolvingSpellStorage {
    /// `.some(nil)` for an Optional `Value` (what an unresolved Optional
    /// injectable reads); traps for other types, which never get here.
    @inlinable
    static var nilValue: Value? {
        guard let none = (Value.self as? any OptionalProtocol.Type)?.nilValue as? Value else {
            fatalError("BloodMagic: a non-Optional property produced no value")
        }
        return .some(none)
    }
}

/// Reads a resolving spell's property: one atomic load and a stored
/// property read when warm; the cold path resolves, stores, publishes.
/// Inlined into the property's getter so the key path folds away; every
/// path ends with the same stored-property read, so the warm path hands
/// out the value like a plain property does.
@inlinable
@inline(__always)
func readResolvingSpell<Container: AnyObject, Storage: ResolvingSpellStorage>(
    _ object: Container, _ storageKeyPath: ReferenceWritableKeyPath<Container, Storage>
) -> Storage.Value {
    // Unoptimized code applies the key path through the runtime, which
    // copies the whole wrapper; that copy must not overlap another thread's
    // store of the value (optimized code reads the cell field alone).
    if isUnoptimizedBuild() { return readResolvingSpellGuarded(object, storageKeyPath) }
    // Borrow the cell without retaining it: the object owns it.
    let cell = Unmanaged.passUnretained(object[keyPath: storageKeyPath].cell)
    if !cell._withUnsafeGuaranteedRef({ $0.isResolved }) {
        // Borrowed on the cold path too: the wrapper's `cell` is a `let` in
        // storage that only the container's own code could replace, and
        // the caller holds the container.
        switch cell._withUnsafeGuaranteedRef({ $0.resolveOrTrap(object: object) }) {
        case .produced(let made):
            // The value moves into storage.
            object[keyPath: storageKeyPath].value = consume made
            cell._withUnsafeGuaranteedRef { $0.publish() }
        case .producedWithHooks(let made, let hooks):
            // The value moves into storage; the hooks (rare) read it back.
            object[keyPath: storageKeyPath].value = consume made
            let stored = object[keyPath: storageKeyPath].value.unsafelyUnwrapped
            cell._withUnsafeGuaranteedRef { $0.runHooks(object: object, value: stored, keyPath: nil, resolution: hooks) }
            cell._withUnsafeGuaranteedRef { $0.publish() }
        case .absent:
            // An Optional @Injectable with no initializer reads nil and stays
            // unresolved, so a later registration still applies.
            object[keyPath: storageKeyPath].value = Storage.nilValue
        case .readStorage:
            break
        }
    }
    return object[keyPath: storageKeyPath].value.unsafelyUnwrapped
}

/// `readResolvingSpell` for unoptimized code: every access to the wrapper
/// holds the object's storage lock (see `WrapperStorageLocks`).
@usableFromInline
func readResolvingSpellGuarded<Container: AnyObject, Storage: ResolvingSpellStorage>(
    _ object: Container, _ storageKeyPath: ReferenceWritableKeyPath<Container, Storage>
) -> Storage.Value {
    let cell = WrapperStorageLocks.withLock(for: object) { object[keyPath: storageKeyPath].cell }
    if !cell.isResolved {
        switch cell.resolveOrTrap(object: object) {
        case .produced(let made):
            WrapperStorageLocks.withLock(for: object) { object[keyPath: storageKeyPath].value = made }
            cell.finishProduction(object: object, value: made, hooks: nil)
        case .producedWithHooks(let made, let hooks):
            WrapperStorageLocks.withLock(for: object) { object[keyPath: storageKeyPath].value = made }
            cell.finishProduction(object: object, value: made, hooks: hooks)
        case .absent:
            return WrapperStorageLocks.withLock(for: object) { () -> Storage.Value in
                object[keyPath: storageKeyPath].value = Storage.nilValue
                return object[keyPath: storageKeyPath].value.unsafelyUnwrapped
            }
        case .readStorage:
            break
        }
    }
    return WrapperStorageLocks.withLock(for: object) { object[keyPath: storageKeyPath].value.unsafelyUnwrapped }
}

/// Whether this code was compiled without optimization. A function, not the
/// check itself, so that unoptimized builds do not warn that the optimized
/// path after it never runs; inlinable, so that it is the configuration of
/// the code that calls it.
@inlinable
@inline(__always)
func isUnoptimizedBuild() -> Bool { _isDebugAssertConfiguration() }

/// Assigns a resolving spell's property: a value replaces the stored one;
/// nil (for an Optional) makes the next read produce a fresh value.
@inlinable
func writeResolvingSpell<Container: AnyObject, Storage: ResolvingSpellStorage>(
    _ object: Container, _ storageKeyPath: ReferenceWritableKeyPath<Container, Storage>, _ newValue: Storage.Value
) {
    let isNil = (newValue as? any OptionalProtocol)?.isNil ?? false
    let cell = WrapperStorageLocks.withLock(for: object) { () -> ResolvingCell<Storage.Value> in
        object[keyPath: storageKeyPath].value = isNil ? nil : newValue
        return object[keyPath: storageKeyPath].cell
    }
    cell.markAssigned(hasValue: !isNil)
}
