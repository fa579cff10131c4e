/// What `$property` gives for @Lazy, @Injectable and @Partial: throwing
/// access and control over the stored value.
public struct ResolvingProjection<Value> {
    @usableFromInline let access: any ResolvingValueAccess<Value>
    @usableFromInline let cell: ResolvingCell<Value>
    var object: AnyObject { access.object }
    var keyPath: AnyKeyPath { access.keyPath }
    func load() -> Value? { access.load() }
    func store(_ value: Value?) { access.store(value) }

    /// Inlinable, like the spells' `projected` subscripts that make it, so
    /// that the access is specialized to the container in the caller.
    @inlinable
    init<Container: AnyObject, Storage: ResolvingSpellStorage>(
        _ object: Container, _ storageKeyPath: ReferenceWritableKeyPath<Container, Storage>
    ) where Storage.Value == Value {
        let access = ResolvingStorageAccess(container: object, storageKeyPath: storageKeyPath)
        self.access = access
        self.cell = access.loadCell()
    }

    /// The value, produced if needed; errors are thrown instead of trapping.
    public func value() throws -> Value {
        if !cell.isResolved {
            switch try cell.resolve(object: object, keyPath: keyPath) {
            case .produced(let made):
                store(made)
                cell.finishProduction(object: object, value: made, hooks: nil, keyPath: keyPath)
            case .producedWithHooks(let made, let hooks):
                store(made)
                cell.finishProduction(object: object, value: made, hooks: hooks, keyPath: keyPath)
            case .absent:
                return try absentValue()
            case .readStorage:
                break
            }
        }
        return load().unsafelyUnwrapped
    }

    /// What an unregistered property reads: nil for an Optional, else the
    /// error that nothing is registered.
    func absentValue() throws -> Value {
        guard let none = (Value.self as? any OptionalProtocol.Type)?.nilValue as? Value else {
            throw cell.registryInUse.noInitializerError(
                type: SpellTypeKey(Value.self), container: ContainerDescriptor(object), property: propertyName
            )
        }
        return none
    }

    /// Whether a value is stored.
    public var isResolved: Bool { cell.isResolved }

    /// Forgets the stored value; the next read produces a fresh one.
    public func reset() {
        store(nil)
        cell.markAssigned(hasValue: false)
    }

    /// The property's name.
    public var propertyName: String { cell.propertyName(keyPath, in: object) }
}

/// Access to the fields of a spell's storage inside its container, for
/// ``ResolvingProjection`` (which is not generic over the container).
@usableFromInline
protocol ResolvingValueAccess<Value> {
    associatedtype Value
    var object: AnyObject { get }
    var keyPath: AnyKeyPath { get }
    func loadCell() -> ResolvingCell<Value>
    func load() -> Value?
    func store(_ value: Value?)
}

/// ``ResolvingValueAccess`` through the container's storage key path. Two
/// references: it fits an existential's inline buffer, so a projection
/// allocates nothing.
@usableFromInline
struct ResolvingStorageAccess<Container: AnyObject, Storage: ResolvingSpellStorage>: ResolvingValueAccess {
    @usableFromInline let container: Container
    @usableFromInline let storageKeyPath: ReferenceWritableKeyPath<Container, Storage>

    @inlinable
    init(container: Container, storageKeyPath: ReferenceWritableKeyPath<Container, Storage>) {
        self.container = container
        self.storageKeyPath = storageKeyPath
    }

    @inlinable var object: AnyObject { container }
    @inlinable var keyPath: AnyKeyPath { storageKeyPath }
    @inlinable func loadCell() -> ResolvingCell<Storage.Value> { withStorage { $0.cell } }
    @inlinable func load() -> Storage.Value? { withStorage { $0.value } }
    @inlinable func store(_ value: Storage.Value?) { withStorage { $0.value = value } }

    /// Runs `body` on the storage in place. A modify access through the key
    /// path projects the storage's address, so only the field `body` touches
    /// is read or written: the whole wrapper (cell and value) is never copied
    /// while another thread may be storing the value. The striped lock
    /// excludes the copies that unoptimized getters make (see
    /// `WrapperStorageLocks`); this code may be compiled in another
    /// configuration than theirs, so it always takes it.
    @inlinable
    func withStorage<Result>(_ body: (inout Storage) -> Result) -> Result {
        WrapperStorageLocks.withLock(for: container) { body(&container[keyPath: storageKeyPath]) }
    }
}
