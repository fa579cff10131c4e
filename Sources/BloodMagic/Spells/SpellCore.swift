import Synchronization

/// Property names derived from property wrappers' storage key paths.
///
/// `\ViewController._requestManager` describes itself with the storage
/// name; the property name is that name without the leading underscore.
/// Descriptions are costly, so names are cached per key path object (the
/// key path is kept alive by the cache, so its identity cannot be reused).
public enum SpellNames {
    private static let cache = Mutex<[ObjectIdentifier: (keyPath: RetainedKeyPath, name: String)]>([:])

    /// The property name for a wrapper's storage key path.
    public static func propertyName(of keyPath: AnyKeyPath) -> String {
        let id = ObjectIdentifier(keyPath)
        if let hit = cache.withLock({ $0[id]?.name }) { return hit }
        let name = parsePropertyName(String(describing: keyPath))
        let retained = RetainedKeyPath(keyPath: keyPath)
        cache.withLock { $0[id] = (retained, name) }
        return name
    }

    /// "\\ViewController._loader" → "loader".
    static func parsePropertyName(_ description: String) -> String {
        var last = Substring(description)
        if let dot = description.lastIndex(of: ".") {
            last = description[description.index(after: dot)...]
        }
        if last.first == "_" { last = last.dropFirst() }
        return String(last)
    }

    /// The name of the property of `object` whose wrapper holds `cell`,
    /// found by reflection (used only for hooks and messages).
    static func propertyName(ofCell cell: AnyObject, in object: AnyObject) -> String {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                if let holder = child.value as? any SpellCellHolder, holder.cellObject === cell, let label = child.label {
                    return label.first == "_" ? String(label.dropFirst()) : label
                }
            }
            mirror = current.superclassMirror
        }
        return "(unknown property)"
    }

    /// The registry name of `object`'s dynamic type.
    @usableFromInline
    static func containerName(of object: AnyObject) -> String {
        SpellTypeKey(type(of: object)).name
    }
}

/// Keeps a key path object alive so that its `ObjectIdentifier`, used as a
/// cache key, cannot be reused by another object.
///
/// `@unchecked Sendable` invariant: the key path is never read or called
/// through this box, only retained; key path objects are immutable.
struct RetainedKeyPath: @unchecked Sendable {
    let keyPath: AnyKeyPath
}

/// Storage shared by the resolving spells (@Lazy, @Injectable, @Partial):
/// the resolved value, read on the warm path through an atomic state word
/// with no lock, and created exactly once under a lock on the cold path.
///
/// Memory ordering: `value` is written only while `lock` is held and
/// before `state` is stored with release ordering; readers load `state`
/// with acquire ordering before reading `value`. Assigning to the property
/// from one thread while another reads it is a race, as for any
/// non-atomic stored property.
public final class ResolvingCell<Value>: SpellCellNaming {
    @usableFromInline let state = Atomic<Int>(0)
    @usableFromInline @exclusivity(unchecked) var value: Value?
    @usableFromInline let lock = Mutex(())
    @usableFromInline let mode: ResolvingMode
    @usableFromInline let explicitName: String?
    @usableFromInline let registry: Registry?
    /// The default-construction closure, type-erased so the cell's code
    /// needs no generic metadata for it (the result is cast back on use).
    @usableFromInline let fallback: (() -> Any)?

    @usableFromInline
    init(mode: ResolvingMode, name: String?, registry: Registry?, fallback: (() -> Any)? = nil) {
        self.mode = mode
        self.explicitName = name
        self.registry = registry
        self.fallback = fallback
    }

    /// Whether a value is stored (acquire load: the value is then visible).
    @inlinable
    var isResolved: Bool {
        @inline(__always) get { state.load(ordering: .acquiring) == 1 }
    }

    /// The stored value; only valid when `isResolved`.
    @inlinable
    var storedValue: Value {
        @inline(__always) get { value.unsafelyUnwrapped }
    }

    /// Stores an assigned value. Assigning nil to an Optional makes the
    /// next read produce a fresh value.
    @usableFromInline
    func assign(_ newValue: Value) {
        lock.withLock { _ in
            if let optional = newValue as? any OptionalProtocol, optional.isNil {
                state.store(0, ordering: .releasing)
                value = nil
            } else {
                value = newValue
                state.store(1, ordering: .releasing)
            }
        }
    }

    /// Forgets the stored value: the next read produces a fresh one.
    func clear() {
        lock.withLock { _ in
            state.store(0, ordering: .releasing)
            value = nil
        }
    }

    /// The cold path of a read that traps on error (property getters
    /// cannot throw); the message is `SpellError`'s.
    @inlinable
    @inline(never)
    func resolveOrTrap(object: AnyObject, keyPath: AnyKeyPath? = nil) -> Value {
        do {
            return try resolve(object: object, keyPath: keyPath)
        } catch {
            fatalError("\(error)")
        }
    }

    /// The property name: explicit, else from the storage key path when
    /// known, else found by reflecting the container (the warm path does
    /// not carry the key path, so that it costs nothing to read).
    @usableFromInline
    func propertyName(_ keyPath: AnyKeyPath?, in object: AnyObject) -> String {
        if let explicitName { return explicitName }
        if let keyPath { return SpellNames.propertyName(of: keyPath) }
        return SpellNames.propertyName(ofCell: self, in: object)
    }

    /// Produces, stores and returns the value (exactly once across
    /// threads), then runs the injection hooks once.
    @inlinable
    func resolve(object: AnyObject, keyPath: AnyKeyPath?) throws -> Value {
        let registry = self.registry ?? Registry.current
        let resolution = registry.cachedResolution(valueType: Value.self, object: object)
        var injected = false
        var result: Value?
        try Registry.trackCellResolution(object: object, cell: self, keyPath: keyPath) {
            try lock.withLock { _ in
                if state.load(ordering: .acquiring) == 1 {
                    result = value
                    return
                }
                guard let made = try produce(object: object, keyPath: keyPath, registry: registry, resolution: resolution) else {
                    return
                }
                value = made
                state.store(1, ordering: .releasing)
                result = made
                injected = true
            }
        }
        guard let result else {
            // Only an Optional @Injectable with no initializer gets here.
            guard let none = (Value.self as? any OptionalProtocol.Type)?.nilValue as? Value else {
                throw registry.noInitializerError(type: SpellTypeKey(Value.self), container: ContainerDescriptor(object), property: propertyName(keyPath, in: object))
            }
            return none
        }
        if injected && (resolution.hooksMayApply || resolution.containerObserves) {
            registry.runHooks(after: resolution, sender: object, property: propertyName(keyPath, in: object), value: result)
        }
        return result
    }

    /// Makes a new value; nil means "Optional injectable, nothing registered".
    @usableFromInline
    func produce(object: AnyObject, keyPath: AnyKeyPath?, registry: Registry, resolution: CachedResolution) throws -> Value? {
        if case .partial(let providers) = mode {
            let wrapped = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
            let made = try registry.instantiateTemplate(
                wrapped, type: SpellTypeKey(wrapped), sender: object, property: propertyName(keyPath, in: object), providers: providers
            )
            return try cast(made, object: object, keyPath: keyPath, source: "template provider")
        }
        if let record = resolution.record {
            let made = try record.produce(for: object)
            return try cast(made, object: object, keyPath: keyPath, source: record.source)
        }
        switch mode {
        case .lazy:
            if let fallback, let made = fallback() as? Value { return made }
            let wrapped = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
            if let constructible = wrapped as? any DefaultConstructible.Type,
               let made = constructible.init() as Any as? Value {
                return made
            }
            throw SpellError.notConstructible(
                property: propertyName(keyPath, in: object), container: SpellNames.containerName(of: object), type: SpellTypeKey(wrapped).name
            )
        case .injectable:
            if resolution.valueIsOptional { return nil }
            let wrapped = SpellTypeKey(Value.self)
            throw registry.noInitializerError(type: wrapped, container: ContainerDescriptor(object), property: propertyName(keyPath, in: object))
        case .partial:
            return nil
        }
    }

    @usableFromInline
    func cast(_ made: Any, object: AnyObject, keyPath: AnyKeyPath?, source: String) throws -> Value {
        if let typed = made as? Value { return typed }
        throw SpellError.wrongValueType(
            property: propertyName(keyPath, in: object), container: SpellNames.containerName(of: object),
            expected: "\(Value.self)", actual: "\(type(of: made))", source: source
        )
    }
}

/// How a resolving cell produces its value when nothing is stored.
@usableFromInline
enum ResolvingMode {
    /// Registered initializer, else `fallback`, else an error.
    case lazy
    /// Registered initializer, else nil for an Optional, else an error.
    case injectable
    /// A template provider.
    case partial([any PartialTemplateProvider]?)
}

/// A property wrapper that keeps its state in a cell object.
protocol SpellCellHolder {
    var cellObject: AnyObject { get }
}

/// A cell that can tell the name of the property it serves.
@usableFromInline
protocol SpellCellNaming: AnyObject {
    func propertyName(_ keyPath: AnyKeyPath?, in object: AnyObject) -> String
}

extension Lazy: SpellCellHolder {
    var cellObject: AnyObject { cell }
}

extension Injectable: SpellCellHolder {
    var cellObject: AnyObject { cell }
}

extension Partial: SpellCellHolder {
    var cellObject: AnyObject { cell }
}

/// What `$property` gives for @Lazy, @Injectable and @Partial: throwing
/// access and control over the stored value.
public struct ResolvingProjection<Value> {
    let object: AnyObject
    let cell: ResolvingCell<Value>
    let keyPath: AnyKeyPath

    /// The value, produced if needed; errors are thrown instead of trapping.
    public func value() throws -> Value {
        if cell.isResolved { return cell.storedValue }
        return try cell.resolve(object: object, keyPath: keyPath)
    }

    /// Whether a value is stored.
    public var isResolved: Bool { cell.isResolved }

    /// Forgets the stored value; the next read produces a fresh one.
    public func reset() { cell.clear() }

    /// The property's name.
    public var propertyName: String { cell.propertyName(keyPath, in: object) }
}

/// A type the spells may create with `init()` when no initializer is
/// registered (the seeds' `+new`, in the type system).
public protocol DefaultConstructible {
    /// Makes a default instance.
    init()
}
