import Foundation
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

    /// The registry name of `object`'s container type: the name it gives
    /// itself (a script object), else its dynamic type's.
    @usableFromInline
    static func containerName(of object: AnyObject) -> String {
        (object as? any SpellContainerNamed)?.spellContainerName ?? SpellTypeKey(type(of: object)).name
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

/// What a cold read found: a value this thread produced (the caller
/// stores it in the property, then calls `finishProduction`), nothing to
/// store for an Optional injectable without initializer (the caller stores
/// nil), or "read the property's storage" (another thread published the
/// value, or this thread is re-entering while it produces it).
@usableFromInline
enum ResolvedValue<Value> {
    case produced(Value, needsHooks: Bool)
    case absent
    case readStorage
}

/// Coordination shared by the resolving spells (@Lazy, @Injectable,
/// @Partial): an atomic state word read on the warm path with no lock, and
/// claimed with one compare-and-swap on the cold path, so that a value is
/// created exactly once.
///
/// The value itself lives in the property wrapper, inside the container
/// object, so a warm read is an atomic load plus a plain stored-property
/// read, and every path of the getter ends with that same read.
///
/// Protocol (`state`, one atomic word): 0 unresolved, 1 published, and
/// while a thread produces the value, that thread's token (the address of
/// its resolution stack, 16-byte aligned) with 2 in its low bits while
/// producing, 3 while the value is stored and the injection hooks run. A
/// thread claims production by moving 0 → token|2 with one compare-and-swap;
/// it creates the value, stores it in the wrapper, moves to token|3 while
/// the hooks run, then publishes (1, release). If production fails it goes
/// back to 0. Other threads arriving at 2 or 3 wait for 1 (acquire), then
/// read the wrapper, or try again if production failed. On the producing
/// thread, a read at 3 (from a hook) reads the wrapper, already written; a
/// read at 2 is a dependency cycle, reported by the resolution tracker with
/// its chain. A cycle across threads (each producing a value that needs the
/// other's) is found by `ResolutionWaitGraph` and reported the same way.
/// Assigning to the property from one thread while another reads it is a
/// race, as for any non-atomic stored property.
///
/// In unoptimized builds the getter reaches the wrapper through the runtime
/// key-path projection, which copies the whole wrapper; there every access
/// to the wrapper holds a striped lock (`WrapperStorageLocks`) so that no
/// copy overlaps the producing thread's store of the value.
public final class ResolvingCell<Value>: SpellCellNaming, ProducedCell {
    @usableFromInline let state = Atomic<UInt>(0)
    @usableFromInline let mode: ResolvingMode
    @usableFromInline let explicitName: String?
    /// The registry given to the wrapper, if any: it always wins.
    @usableFromInline let registry: Registry?
    /// The registry current when the cell was made (its container was
    /// created): installed with `withCurrent`, or the registry whose
    /// initializer created the container; nil for `shared`.
    @usableFromInline let creationRegistry: Registry?
    /// The default-construction closure, type-erased so the cell's code
    /// needs no generic metadata for it (the result is cast back on use).
    @usableFromInline let fallback: (() -> Any)?

    @usableFromInline static var unresolved: UInt { 0 }
    @usableFromInline static var published: UInt { 1 }
    /// Low bits of a claimed state: producing, or running the hooks.
    @usableFromInline static var producing: UInt { 2 }
    @usableFromInline static var runningHooks: UInt { 3 }
    @usableFromInline static var phaseMask: UInt { 3 }

    /// Without an explicit `registry`, the cell remembers the registry
    /// current when it is made (its container is created); see
    /// `resolvingRegistry` for which one a read uses.
    @usableFromInline
    init(mode: ResolvingMode, name: String?, registry: Registry?, fallback: (() -> Any)? = nil) {
        self.mode = mode
        self.explicitName = name
        self.registry = registry
        self.creationRegistry = registry == nil ? Registry.scopedRegistry : nil
        self.fallback = fallback
    }

    /// The registry a read resolves through: the wrapper's own, else the
    /// one installed with `withCurrent` around the read, else the one
    /// current when the container was created, else `shared`.
    @usableFromInline
    var resolvingRegistry: Registry {
        registry ?? Registry.scopedAtRead ?? creationRegistry ?? Registry.shared
    }

    /// Whether the wrapper's value is published (acquire load: the value
    /// is then visible).
    @inlinable
    var isResolved: Bool {
        @inline(__always) get { state.load(ordering: .acquiring) == Self.published }
    }

    /// The state word, for the wait graph.
    var stateWord: UInt { state.load(ordering: .acquiring) }

    /// The registry this cell resolves through.
    var registryInUse: Registry { resolvingRegistry }

    /// Runs the hooks for a value the caller has just stored in the
    /// wrapper, then publishes it.
    @inlinable
    func finishProduction(object: AnyObject, value: Value, needsHooks: Bool, keyPath: AnyKeyPath? = nil) {
        if needsHooks {
            runHooks(object: object, value: value, keyPath: keyPath)
        }
        publish()
    }

    /// Publishes the value stored in the wrapper (release: other threads
    /// that see the state see the value).
    @inlinable
    func publish() {
        state.store(Self.published, ordering: .releasing)
    }

    /// Runs the hooks (the lookup is cached, so finding it again is cheap,
    /// and keeps the common, hook-free path from carrying it around).
    @usableFromInline
    func runHooks(object: AnyObject, value: Value, keyPath: AnyKeyPath?) {
        state.store(UInt(bitPattern: ResolutionStack.currentPointer) | Self.runningHooks, ordering: .releasing)
        let registry = resolvingRegistry
        let property = propertyName(keyPath, in: object)
        registry.withCachedResolution(valueType: Value.self, object: object, stack: ResolutionStack.currentPointer) { resolution in
            // Reported here, off the first read's path: `needsHooks` says so.
            if resolution.reports, let record = resolution.record {
                registry.log.served(
                    container: SpellNames.containerName(of: object), property: property,
                    type: SpellTypeKey(Value.self).name, by: record)
            }
            registry.runHooks(after: resolution, sender: object, property: property, value: value)
        }
    }

    /// Records an assignment the caller has just stored in the wrapper:
    /// a value (published) or nil (the next read produces a fresh value).
    @inlinable
    func markAssigned(hasValue: Bool) {
        state.store(hasValue ? Self.published : Self.unresolved, ordering: .releasing)
    }

    /// The cold path of a read that traps on error (property getters
    /// cannot throw); the message is `SpellError`'s.
    @inlinable
    @inline(never)
    func resolveOrTrap(object: AnyObject, keyPath: AnyKeyPath? = nil) -> ResolvedValue<Value> {
        do {
            return try resolve(object: object, keyPath: keyPath)
        } catch {
            trap(error)
        }
    }

    @usableFromInline
    func trap(_ error: any Error) -> Never {
        fatalError("\(error)")
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

    /// Produces the value (exactly once across threads), or says where to
    /// find it; see the type's protocol.
    @inlinable
    func resolve(object: AnyObject, keyPath: AnyKeyPath?) throws -> ResolvedValue<Value> {
        let stack = ResolutionStack.currentPointer
        let me = UInt(bitPattern: stack)
        while true {
            let (claimed, found) = state.compareExchange(
                expected: Self.unresolved, desired: me | Self.producing, ordering: .acquiringAndReleasing
            )
            if claimed {
                return try produceClaimed(object: object, keyPath: keyPath, stack: stack)
            }
            if found == Self.published { return .readStorage }
            if found & ~Self.phaseMask == me {
                // This thread is producing the value: from a hook it is
                // stored already; during production this is a cycle, which
                // the tracker reports with the chain.
                if found & Self.phaseMask == Self.runningHooks { return .readStorage }
                try reportCycle(object: object, keyPath: keyPath, stack: stack)
            }
            if try waitForProduction(object: object, keyPath: keyPath, me: me) { return .readStorage }
            // Production failed: try again.
        }
    }

    /// Waits while another thread produces the value: true once it is
    /// published, false if production failed. A wait that lasts is recorded
    /// in the wait graph, which throws the cycle error when the producer
    /// waits, in the end, for this thread.
    @usableFromInline
    func waitForProduction(object: AnyObject, keyPath: AnyKeyPath?, me: UInt) throws -> Bool {
        var recordedProducer: UInt = 0
        defer { if recordedProducer != 0 { ResolutionWaitGraph.endWait(waiter: me) } }
        var spins = 0
        while true {
            let now = state.load(ordering: .acquiring)
            if now == Self.published { return true }
            if now == Self.unresolved { return false }
            let producer = now & ~Self.phaseMask
            if spins >= Self.spinsBeforeRecordingWait && producer != recordedProducer {
                if recordedProducer != 0 { ResolutionWaitGraph.endWait(waiter: me) }
                let recorded = try ResolutionWaitGraph.beginWait(
                    waiter: me, producer: producer, cell: self, object: object, keyPath: keyPath)
                recordedProducer = recorded ? producer : 0
            }
            spins += 1
            yieldThread()
        }
    }

    /// Short waits (the common case: two threads reading the same property
    /// for the first time) never touch the wait graph's lock.
    @usableFromInline static var spinsBeforeRecordingWait: Int { 64 }

    /// Production after a successful claim: lookup, initializer inside
    /// the cycle tracker; on failure (or nothing to store) the claim is
    /// released.
    @inlinable
    func produceClaimed(object: AnyObject, keyPath: AnyKeyPath?, stack: UnsafeMutableRawPointer) throws -> ResolvedValue<Value> {
        if registry != nil {
            // Borrowed: a `let` of this cell, which the caller keeps alive.
            return try Unmanaged.passUnretained(registry.unsafelyUnwrapped)._withUnsafeGuaranteedRef { registry in
                try produceClaimed(object: object, keyPath: keyPath, stack: stack, registry: registry)
            }
        }
        return try produceClaimed(object: object, keyPath: keyPath, stack: stack, registry: resolvingRegistry)
    }

    @inlinable
    func produceClaimed(
        object: AnyObject, keyPath: AnyKeyPath?, stack: UnsafeMutableRawPointer, registry: Registry
    ) throws -> ResolvedValue<Value> {
        do {
            return try registry.withCachedResolution(valueType: Value.self, object: object, stack: stack) { resolution in
                try ResolutionStack.borrow(stack) { try $0.pushCell(object: object, cell: self, keyPath: keyPath) }
                defer { ResolutionStack.borrow(stack) { $0.pop() } }
                let made = try ResolutionStack.whileResolving(registry, on: stack) {
                    try produce(object: object, keyPath: keyPath, registry: registry, resolution: resolution)
                }
                if let made {
                    return .produced(made, needsHooks: resolution.needsHooks)
                }
                releaseClaim()
                return .absent
            }
        } catch {
            releaseClaim()
            throw error
        }
    }

    @usableFromInline
    func releaseClaim() {
        state.store(Self.unresolved, ordering: .releasing)
    }

    /// Throws the cycle error for a read of this cell during its own production.
    @usableFromInline
    func reportCycle(object: AnyObject, keyPath: AnyKeyPath?, stack: UnsafeMutableRawPointer) throws {
        try ResolutionStack.borrow(stack) { try $0.pushCell(object: object, cell: self, keyPath: keyPath) }
        // Not on the tracker's stack (cannot happen while producing): still a cycle.
        ResolutionStack.borrow(stack) { $0.pop() }
        throw SpellError.dependencyCycle(chain: ["\(SpellNames.containerName(of: object)).\(propertyName(keyPath, in: object))"])
    }

    /// Makes a new value; nil means "Optional injectable, nothing registered".
    /// Without a registered initializer the resolvers are asked first (see
    /// `Registry.addResolver`), then the usual fallback applies.
    @inlinable
    func produce(object: AnyObject, keyPath: AnyKeyPath?, registry: Registry, resolution: CachedResolution) throws -> Value? {
        switch mode {
        case .partial(let providers):
            // A partial always builds from its template, even where an initializer is registered.
            let wrapped = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
            let made = try registry.instantiateTemplate(
                wrapped, type: SpellTypeKey(wrapped), sender: object, property: propertyName(keyPath, in: object), providers: providers
            )
            return try cast(made, object: object, keyPath: keyPath, source: "template provider")
        case .lazy:
            if let made = try produceRegistered(object: object, keyPath: keyPath, resolution: resolution) { return made }
            if let made = try produceFromResolvers(object: object, keyPath: keyPath, registry: registry, spell: .lazy) {
                return made
            }
            if let fallback, let made = fallback() as? Value {
                if registry.log.mayReport { reportServed(object: object, keyPath: keyPath, registry: registry, resolution: nil) }
                return made
            }
            let wrapped = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
            if let constructible = wrapped as? any DefaultConstructible.Type,
               let made = constructible.init() as Any as? Value {
                if registry.log.mayReport { reportServed(object: object, keyPath: keyPath, registry: registry, resolution: nil) }
                return made
            }
            throw SpellError.notConstructible(
                property: propertyName(keyPath, in: object), container: SpellNames.containerName(of: object), type: SpellTypeKey(wrapped).name
            )
        case .injectable:
            if let made = try produceRegistered(object: object, keyPath: keyPath, resolution: resolution) { return made }
            if let made = try produceFromResolvers(object: object, keyPath: keyPath, registry: registry, spell: .injectable) {
                return made
            }
            if resolution.valueIsOptional {
                if registry.log.mayReport { reportServed(object: object, keyPath: keyPath, registry: registry, resolution: nil, absent: true) }
                return nil
            }
            let wrapped = SpellTypeKey(Value.self)
            throw registry.noInitializerError(type: wrapped, container: ContainerDescriptor(object), property: propertyName(keyPath, in: object))
        }
    }

    /// The value of the registered initializer the lookup found; nil (the
    /// outer Optional) when none was found.
    @inlinable
    func produceRegistered(object: AnyObject, keyPath: AnyKeyPath?, resolution: CachedResolution) throws -> Value?? {
        if resolution.makesTyped(Value.self) { return .some(try resolution.makeTyped(Value.self, for: object)) }
        guard let record = resolution.record else {
            if let failure = resolution.failure { throw failure }
            return nil
        }
        return .some(try cast(try record.produce(for: object), object: object, keyPath: keyPath, source: record.source))
    }

    @inlinable
    func cast(_ made: Any, object: AnyObject, keyPath: AnyKeyPath?, source: String) throws -> Value {
        try Registry.cast(made, to: Value.self, property: propertyName(keyPath, in: object), sender: object, source: source)
    }
}

/// How a resolving cell produces its value when nothing is stored.
@usableFromInline
enum ResolvingMode {
    /// Registered initializer, else a resolver, else `fallback`, else an error.
    case lazy
    /// Registered initializer, else a resolver, else nil for an Optional, else an error.
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

/// The storage of a resolving spell's property wrapper: its cell and the
/// value, kept inline in the container object.
public protocol ResolvingSpellStorage {
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
        case .produced(let made, let needsHooks):
            // The value moves into storage; hooks (rare) read it back.
            object[keyPath: storageKeyPath].value = consume made
            if needsHooks {
                let stored = object[keyPath: storageKeyPath].value.unsafelyUnwrapped
                cell._withUnsafeGuaranteedRef { $0.runHooks(object: object, value: stored, keyPath: nil) }
            }
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
        case .produced(let made, let needsHooks):
            WrapperStorageLocks.withLock(for: object) { object[keyPath: storageKeyPath].value = made }
            cell.finishProduction(object: object, value: made, needsHooks: needsHooks)
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

/// Striped locks for the wrapper storage of resolving spells in unoptimized
/// code, where Swift applies the storage key path through the runtime and
/// copies the whole wrapper (cell and value) on every access: a copy made
/// while another thread stores the value can lose the value's reference.
/// Optimized code folds the getter's key path into field accesses and reads
/// without these locks. The setter and `$property` lock in every build:
/// they may be compiled in another configuration than the getter they must
/// exclude (the library's, not the client's), and they are off the hot path.
@usableFromInline
enum WrapperStorageLocks {
    static let stripes: [NSLock] = (0..<64).map { _ in NSLock() }

    @usableFromInline
    static func withLock<Result>(for object: AnyObject, _ body: () throws -> Result) rethrows -> Result {
        let stripe = Int(truncatingIfNeeded: UInt(bitPattern: ObjectIdentifier(object).hashValue) >> 4) & 63
        let lock = stripes[stripe]
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

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
            case .produced(let made, let needsHooks):
                store(made)
                cell.finishProduction(object: object, value: made, needsHooks: needsHooks, keyPath: keyPath)
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

/// A type the spells may create with `init()` when no initializer is
/// registered (the seeds' `+new`, in the type system).
public protocol DefaultConstructible {
    /// Makes a default instance.
    init()
}
