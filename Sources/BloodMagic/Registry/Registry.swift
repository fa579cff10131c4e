import Synchronization

/// The registry of initializers, hooks, template providers, preference
/// overrides and custom spells (the seeds' `BMInitializer` table).
///
/// It is keyed by names (`SpellTypeKey`) so a script bridge can register
/// for "RequestManager" or {"Client"} and serve Swift properties too.
/// All state sits behind one `Mutex`; lookups from property wrappers are
/// cached per (property type, container type) and the caches are dropped on
/// every change, so registering after first use affects properties not yet
/// resolved.
public final class Registry: Sendable {
    let state: Mutex<RegistryState>
    /// Bumped on every change that can alter a lookup; per-thread lookup
    /// caches compare it to know whether an entry is still valid.
    @usableFromInline package let generation: GenerationCounter
    /// Distinguishes registries in per-thread caches (never reused, unlike
    /// an object address).
    @usableFromInline let serial = GenerationCounter.nextRegistrySerial()
    /// Resolution events through swift-log (see `logger`, Registry+Logging).
    @usableFromInline package let log = ResolutionLog()

    /// Makes an empty registry.
    public init() {
        let generation = GenerationCounter()
        self.generation = generation
        state = Mutex(RegistryState(generation: generation))
    }

    /// The registry the spells use when none is given explicitly.
    public static let shared = Registry()

    @TaskLocal static var taskRegistry: Registry?

    /// The registry a container created now remembers, or nil for
    /// `shared`: the one installed with `withCurrent` around the calling
    /// code, else the registry whose initializer is running on this thread
    /// (so that objects an initializer makes resolve where it does).
    static var scopedRegistry: Registry? { taskRegistry ?? ResolutionStack.resolvingRegistryOnThisThread }

    /// The registry installed with `withCurrent` around the calling code, if any.
    @usableFromInline
    static var scopedAtRead: Registry? { taskRegistry }

    /// The registry in effect: the one installed with `withCurrent` around
    /// the calling code, else `shared`.
    ///
    /// Which registry a spelled property resolves through, first match wins:
    ///
    /// 1. the registry given to its wrapper (`@Injectable(registry: r)`);
    /// 2. the one installed with `withCurrent` around the read;
    /// 3. the one that was current **when its container was created**:
    ///    installed with `withCurrent` then, or the registry whose
    ///    initializer created the container;
    /// 4. `shared`.
    ///
    /// So a container keeps the registry it was made with on every thread:
    ///
    /// ```swift
    /// let screen = Registry.withCurrent(testRegistry) { Screen() }
    /// Thread { _ = screen.loader }.start()                   // testRegistry
    /// Registry.withCurrent(testRegistry) {
    ///     DispatchQueue.global().async { _ = Screen().loader }   // shared!
    /// }
    /// ```
    ///
    /// `withCurrent` is task-local: `Task { }` inherits it, but a `Thread`
    /// or a Dispatch block does not, so a container created there, outside
    /// any initializer, uses `shared`. Carry the registry over with
    /// ``bindingCurrent(_:)``, or wrap the block's body in `withCurrent`.
    public static var current: Registry { taskRegistry ?? shared }

    /// Runs `body` with `registry` as `Registry.current` (task-local, so
    /// tests running in parallel each see their own). Containers created in
    /// `body` keep resolving through `registry` after it returns.
    public static func withCurrent<Result>(_ registry: Registry, _ body: () throws -> Result) rethrows -> Result {
        try $taskRegistry.withValue(registry, operation: body)
    }

    /// `body`, bound to the registry current now: wherever and whenever it
    /// runs (another thread, a Dispatch queue), it runs with that registry
    /// as `Registry.current`.
    ///
    /// ```swift
    /// Registry.withCurrent(testRegistry) {
    ///     DispatchQueue.global().async(execute: Registry.bindingCurrent {
    ///         _ = Screen().loader          // resolved through testRegistry
    ///     })
    /// }
    /// ```
    public static func bindingCurrent<Result>(
        _ body: @escaping @Sendable () -> Result
    ) -> @Sendable () -> Result {
        let registry = current
        return { withCurrent(registry, body) }
    }

    /// Async form of `withCurrent(_:_:)`.
    public static func withCurrent<Result>(
        _ registry: Registry,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await $taskRegistry.withValue(registry, operation: body, isolation: isolation)
    }

    // MARK: Initializers

    /// Registers a type-erased initializer (the form a script bridge uses).
    ///
    /// - Parameters:
    ///   - type: the property type it serves (concrete name or protocol set).
    ///   - container: which containers it applies to (default: any).
    ///   - scope: per instance (default) or singleton.
    ///   - source: where it was registered, "file:line".
    ///   - initializer: builds the value; receives the container object.
    @discardableResult
    public func registerInitializer(
        type: SpellTypeKey,
        container: ContainerMatch = .any,
        scope: SpellScope = .instance,
        source: String,
        initializer: @escaping @Sendable (AnyObject) throws -> Any
    ) -> SpellHandle {
        register(type: type, container: container, scope: scope, source: source, initializer: initializer, typed: nil)
    }

    private func register(
        type: SpellTypeKey, container: ContainerMatch, scope: SpellScope, source: String,
        initializer: @escaping @Sendable (AnyObject) throws -> Any, typed: (any TypedInitializing)?
    ) -> SpellHandle {
        state.withLock { state in
            _ = state.catalog.note(type)
            if let key = container.key { _ = state.catalog.note(key) }
            let handle = state.makeHandle()
            let record = InitializerRecord(
                handle: handle, type: type, container: container, scope: scope, source: source,
                make: initializer, slot: scope == .singleton ? SingletonSlot() : nil, typed: typed
            )
            // A script host reloading its scripts stages them (Registry+Staging).
            if state.stageInitializerIfOpen(record) { return handle }
            state.insertInitializer(record)
            state.invalidateCaches()
            return handle
        }
    }

    /// Registers an initializer for property type `type` in any container.
    ///
    /// `registry.register(RequestManager.self) { sender in RequestManager() }`
    @discardableResult
    public func register<Value>(
        _ type: Value.Type,
        scope: SpellScope = .instance,
        fileID: String = #fileID,
        line: Int = #line,
        initializer: @escaping @Sendable (_ sender: AnyObject) throws -> Value
    ) -> SpellHandle {
        register(
            type: SpellTypeKey(type), container: .any, scope: scope,
            source: spellSource(fileID, line), initializer: { try initializer($0) },
            typed: TypedInitializer(initializer)
        )
    }

    /// Registers an initializer for `type` restricted to containers of
    /// exactly `container` (or also its subclasses with `includingSubclasses`).
    /// The sender is handed over typed.
    @discardableResult
    public func register<Value, Container: AnyObject>(
        _ type: Value.Type,
        container: Container.Type,
        includingSubclasses: Bool = false,
        scope: SpellScope = .instance,
        fileID: String = #fileID,
        line: Int = #line,
        initializer: @escaping @Sendable (_ sender: Container) throws -> Value
    ) -> SpellHandle {
        let match: ContainerMatch = includingSubclasses ? .kindOf(container) : .exactly(container)
        let typeName = SpellTypeKey(type).name
        let source = spellSource(fileID, line)
        let withSender: @Sendable (AnyObject) throws -> Value = { sender in
            guard let typed = sender as? Container else {
                if let holder = sender as? StaticSpellContainer {
                    throw SpellError.staticSender(type: typeName, container: holder.spellContainerName, source: source)
                }
                throw SpellError.wrongValueType(
                    property: "(sender)", container: SpellTypeKey(Swift.type(of: sender)).name,
                    expected: SpellTypeKey(Container.self).name, actual: SpellTypeKey(Swift.type(of: sender)).name,
                    source: "initializer for \(typeName)"
                )
            }
            return try initializer(typed)
        }
        return register(
            type: SpellTypeKey(type), container: match, scope: scope,
            source: source, initializer: { try withSender($0) },
            typed: TypedInitializer(withSender)
        )
    }

    /// Removes one initializer. Returns whether it was registered; the
    /// handle of another kind of registration is left alone.
    @discardableResult
    public func unregisterInitializer(_ handle: SpellHandle) -> Bool {
        // Handles are never reused: one that names an initializer now names
        // that initializer or nothing when `unregister` runs.
        guard state.withLock({ $0.initializers.contains { $0.handle == handle } }) else { return false }
        return unregister(handle)
    }

    /// Removes any registration (initializer, hook, override, provider,
    /// custom spell, resolver, preference key generator) by handle. Returns whether it was registered.
    @discardableResult
    public func unregister(_ handle: SpellHandle) -> Bool {
        unregister([handle]) == 1
    }

    /// Removes many registrations at once, in time linear in the registry's
    /// size (a script host rolling back a file, or going away). Returns how
    /// many were registered.
    @discardableResult
    public func unregister(_ handles: some Collection<SpellHandle>) -> Int {
        guard !handles.isEmpty else { return 0 }
        let doomed = Set(handles)
        return state.withLock { state in
            let before = state.count
            let staged = state.unstage(doomed)
            state.initializers.removeAll { doomed.contains($0.handle) }
            state.hooks.removeAll { doomed.contains($0.handle) }
            state.preferenceOverrides.removeAll { doomed.contains($0.handle) }
            state.templateProviders.removeAll { doomed.contains($0.handle) }
            state.customSpells.removeAll { doomed.contains($0.handle) }
            state.resolvers.removeAll { doomed.contains($0.handle) }
            state.preferenceKeyGenerators.removeAll { doomed.contains($0.handle) }
            // A diagnostic about a registration that is gone no longer holds.
            state.diagnostics.removeAll { $0.handles.contains(where: doomed.contains) }
            state.indexInitializers()
            state.invalidateCaches()
            return before - state.count + staged
        }
    }

    /// Removes every registration of every kind (singletons made so far are dropped).
    public func removeAll() {
        state.withLock { state in
            state.initializers.removeAll()
            state.initializersByType.removeAll()
            state.latestInitializer.removeAll()
            state.hooks.removeAll()
            state.preferenceOverrides.removeAll()
            state.templateProviders.removeAll()
            state.customSpells.removeAll()
            state.resolvers.removeAll()
            state.preferenceKeyGenerators.removeAll()
            state.diagnostics.removeAll()
            state.invalidateCaches()
        }
    }

    /// Back to a new registry's state: no registrations and no diagnostics.
    public func reset() {
        state.withLock { state in
            let next = state.nextID
            let catalog = state.catalog
            state = RegistryState(generation: state.generation)
            state.nextID = next
            state.catalog = catalog
            state.invalidateCaches()
        }
    }

    // MARK: Introspection

    /// Every registration, in registration order, for tools.
    public var entries: [SpellEntry] {
        state.withLock { state in
            var result: [SpellEntry] = []
            result += state.initializers.map(\.entry)
            result += state.hooks.map(\.entry)
            result += state.preferenceOverrides.map(\.entry)
            result += state.templateProviders.map(\.entry)
            result += state.customSpells.map(\.entry)
            result += state.resolvers.map(\.entry)
            result += state.preferenceKeyGenerators.map(\.entry)
            return result.sorted { $0.handle.id < $1.handle.id }
        }
    }

    /// What the registry noticed and decided (e.g. two equally specific
    /// registrations, the later winning), oldest first.
    ///
    /// Only diagnostics about registrations that are still registered are
    /// kept (unregistering drops those that name it), and at most the
    /// newest ``maxDiagnostics``.
    public var diagnostics: [SpellDiagnostic] {
        state.withLock { $0.diagnostics }
    }

    /// The most diagnostics the registry keeps; older ones are dropped
    /// first, so a script that keeps shadowing registrations cannot grow
    /// the list without bound.
    public static let maxDiagnostics = 1000

    // MARK: Scoped overrides

    /// Applies `overrides` (registrations made on this registry), runs
    /// `body`, then restores the registry to what it was before: the
    /// replacements last for the length of the closure.
    ///
    /// Registrations are restored, singletons already made by the original
    /// registrations are kept. Other threads using the registry meanwhile see
    /// the overrides too: give each test its own registry, or serialize.
    public func withOverrides<Result>(
        _ overrides: (Registry) throws -> Void,
        run body: () throws -> Result
    ) rethrows -> Result {
        let snapshot = state.withLock { $0.snapshot() }
        defer { state.withLock { $0.restore(snapshot) } }
        try overrides(self)
        return try body()
    }

    /// Async form of `withOverrides(_:run:)`.
    public func withOverrides<Result>(
        _ overrides: (Registry) throws -> Void,
        isolation: isolated (any Actor)? = #isolation,
        run body: () async throws -> Result
    ) async rethrows -> Result {
        let snapshot = state.withLock { $0.snapshot() }
        defer { state.withLock { $0.restore(snapshot) } }
        try overrides(self)
        return try await body()
    }
}

// MARK: - Stored state

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
    private let making = Mutex<Void>(())

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

/// A made singleton, type-erased (a script bridge's registration).
///
/// Never mutated after it is published; shared by every container on
/// every thread. The payload's own thread safety is the registrant's
/// documented promise (see ``SpellScope/singleton``): the registry cannot
/// check it, because script bridges register type-erased values.
@usableFromInline
class SingletonBox {
    /// The value as `Any`.
    var anyValue: Any { fatalError("SingletonBox is abstract") }
}

/// A singleton made by a Swift initializer registered with its type: read
/// back typed, with no cast.
@usableFromInline
final class TypedSingletonBox<Value>: SingletonBox {
    @usableFromInline let value: Value

    init(_ value: Value) { self.value = value }

    override var anyValue: Any { value }
}

/// A singleton made by a type-erased initializer.
final class ErasedSingletonBox: SingletonBox {
    let value: Any

    init(_ value: Any) { self.value = value }

    override var anyValue: Any { value }
}

/// A singleton's value, shared by every container on every thread.
///
/// `@unchecked Sendable` invariant: the wrapper itself is immutable (`let`)
/// and the slot that holds it is protected by a `Mutex`. The payload's own
/// thread safety is the registrant's documented promise (see
/// ``SpellScope/singleton``): the registry cannot check it, because script
/// bridges register type-erased values.
struct SharedValue: @unchecked Sendable {
    let value: Any
    init(_ value: Any) { self.value = value }
}

/// One registered initializer. A class so that cached lookups hand it
/// out with a single retain.
@usableFromInline
final class InitializerRecord: Sendable {
    let handle: SpellHandle
    let type: SpellTypeKey
    let container: ContainerMatch
    let scope: SpellScope
    @usableFromInline let source: String
    let make: @Sendable (AnyObject) throws -> Any
    @usableFromInline let slot: SingletonSlot?
    /// The same initializer with its static result type, when it was
    /// registered from Swift: a spell of exactly that type calls it
    /// directly, with no boxing of the value and no dynamic cast.
    @usableFromInline let typed: (any TypedInitializing)?

    init(
        handle: SpellHandle, type: SpellTypeKey, container: ContainerMatch, scope: SpellScope, source: String,
        make: @escaping @Sendable (AnyObject) throws -> Any, slot: SingletonSlot?, typed: (any TypedInitializing)? = nil
    ) {
        self.handle = handle
        self.type = type
        self.container = container
        self.scope = scope
        self.source = source
        self.make = make
        self.slot = slot
        self.typed = typed
    }

    var entry: SpellEntry {
        SpellEntry(
            handle: handle, kind: scope == .singleton ? .singleton : .initializer, type: type,
            container: container, property: nil, scope: scope, source: source
        )
    }

    /// Runs the initializer for `sender`, honouring the scope.
    @usableFromInline
    func produce(for sender: AnyObject) throws -> Any {
        guard let slot else { return try make(sender) }
        if let made = slot.existing { return made }
        return try makeSingleton(slot, for: sender)
    }

    /// Makes the singleton (unless another thread did first) and returns it.
    /// The tracker reports an initializer that needs its own singleton as a
    /// cycle before `get` would take the slot's lock a second time.
    private func makeSingleton(_ slot: SingletonSlot, for sender: AnyObject) throws -> Any {
        try Registry.trackResolution(container: "\(type.name) (singleton)", property: "", object: slot) {
            try slot.get {
                let box = try makeBox(for: sender)
                Registry.reportSingletonCreated(by: self)
                return box
            }
        }
    }

    /// The box of a new singleton: typed when the initializer was registered
    /// from Swift with its type, whichever path asked for the value first,
    /// so that typed reads (`SingletonSlot.typedValue`) may trust it.
    private func makeBox(for sender: AnyObject) throws -> SingletonBox {
        if let typed { return try typed.makeSingletonBox(for: sender) }
        return ErasedSingletonBox(try make(sender))
    }

    /// The singleton as the type its typed initializer returns, made if
    /// needed; only after `CachedResolution.makesTyped` said yes.
    @usableFromInline
    func produceTypedSingleton<Value>(_: Value.Type, for sender: AnyObject) throws -> Value {
        let slot = slot.unsafelyUnwrapped
        if let made = slot.typedValue(Value.self) { return made }
        _ = try makeSingleton(slot, for: sender)
        return slot.typedValue(Value.self).unsafelyUnwrapped
    }
}

/// A registered hook.
struct HookRecord: Sendable {
    let handle: SpellHandle
    let container: ContainerMatch
    let property: String?
    let source: String
    let run: @Sendable (AnyObject, String, Any) -> Void

    var entry: SpellEntry {
        SpellEntry(handle: handle, kind: .hook, type: nil, container: container, property: property, scope: nil, source: source)
    }
}

/// A registered preference override.
struct PreferenceOverrideRecord: Sendable {
    let handle: SpellHandle
    let container: ContainerMatch
    let property: String
    let override: PreferenceOverride
    let source: String

    var entry: SpellEntry {
        SpellEntry(handle: handle, kind: .preferenceOverride, type: nil, container: container, property: property, scope: nil, source: source)
    }
}

/// A registered template provider.
struct TemplateProviderRecord: Sendable {
    let handle: SpellHandle
    let type: SpellTypeKey?
    let provider: any PartialTemplateProvider
    let source: String

    var entry: SpellEntry {
        SpellEntry(handle: handle, kind: .partialTemplate, type: type, container: .any, property: nil, scope: nil, source: source)
    }
}

/// A registered named custom spell.
struct CustomSpellRecord: Sendable {
    let handle: SpellHandle
    let name: String
    let hooks: NamedSpellHooks
    let source: String

    var entry: SpellEntry {
        SpellEntry(handle: handle, kind: .customSpell, type: nil, container: .any, property: name, scope: nil, source: source)
    }
}

/// A monotonically increasing counter, readable without a lock.
@usableFromInline
package final class GenerationCounter: Sendable {
    @usableFromInline let value = Atomic<UInt64>(0)
    private static let serials = Atomic<UInt64>(0)

    /// The current generation (acquire: state changed before a bump is visible).
    @inlinable
    package var current: UInt64 { value.load(ordering: .acquiring) }

    /// Marks a change.
    func bump() { value.add(1, ordering: .releasing) }

    /// A new registry serial number.
    static func nextRegistrySerial() -> UInt64 {
        serials.add(1, ordering: .relaxed).newValue
    }
}

/// One entry of a thread's lookup cache (registry serial 0: empty).
@usableFromInline
struct ThreadResolutionCacheEntry {
    @usableFromInline var registry: UInt64 = 0
    @usableFromInline var generation: UInt64 = 0
    @usableFromInline var key = FastResolutionKey(type: 0, container: 0)
    @usableFromInline var resolution: CachedResolution?
    /// Lent to a resolution in progress on this thread (see
    /// `Registry.withCachedResolution`): not to be replaced meanwhile.
    @usableFromInline var busy = false

    init() {}

    @usableFromInline
    init(registry: UInt64, generation: UInt64, key: FastResolutionKey, resolution: CachedResolution) {
        self.registry = registry
        self.generation = generation
        self.key = key
        self.resolution = resolution
    }
}

/// Key of the Swift fast cache: the addresses of the property type's and
/// the container type's metadata.
@usableFromInline
struct FastResolutionKey: Hashable, Sendable {
    @usableFromInline let type: UInt
    @usableFromInline let container: UInt

    @usableFromInline
    init(type: UInt, container: UInt) {
        self.type = type
        self.container = container
    }

    @usableFromInline
    init(valueType: Any.Type, containerType: AnyObject.Type) {
        self.type = UInt(bitPattern: ObjectIdentifier(valueType))
        self.container = UInt(bitPattern: ObjectIdentifier(containerType))
    }

    /// The slot of this key in a thread's 64-entry lookup cache.
    @usableFromInline
    var threadCacheSlot: Int {
        let mixed = (type &* 0x9E37_79B9_7F4A_7C15) ^ (container &* 0xC2B2_AE3D_27D4_EB4F)
        return Int(truncatingIfNeeded: mixed >> 58)
    }
}

/// Key of the name cache used by `resolve(type:container:property:)`.
struct NamedResolutionKey: Hashable {
    let type: SpellTypeKey
    let container: SpellTypeKey
}

/// A cached lookup: the winning initializer (if any) and whether any hook
/// could apply to this container type. A class, so that a cached lookup is
/// handed out with one retain.
public final class CachedResolution: Sendable {
    @usableFromInline let record: InitializerRecord?
    @usableFromInline let hooksMayApply: Bool
    @usableFromInline let containerObserves: Bool
    @usableFromInline let valueIsOptional: Bool
    /// The winning initializer's typed form, when a spell of its exact
    /// result type may call it directly (registered from Swift); see
    /// `makesTyped` and `makeTyped`.
    @usableFromInline let typed: (any TypedInitializing)?
    @usableFromInline let typedValueType: ObjectIdentifier?
    /// The winner's singleton slot, when it has a typed initializer and
    /// singleton scope: a typed read of a made singleton is a load from it.
    @usableFromInline let typedSingleton: SingletonSlot?
    /// Why the lookup found no initializer although registrations named
    /// the type: the name that would have won refers to several types.
    @usableFromInline let failure: SpellError?
    /// Whether the registry reports resolution events (its logger's level
    /// when the lookup was made; setting `Registry.logger` drops cached lookups).
    @usableFromInline let reports: Bool
    /// Whether anything must run after the value is stored: hooks, the
    /// container's `propertyInjected`, or the `served` event (Registry+Logging).
    @usableFromInline let needsHooks: Bool

    init(
        record: InitializerRecord?, hooksMayApply: Bool, containerObserves: Bool, valueIsOptional: Bool = false,
        failure: SpellError? = nil, reports: Bool = false
    ) {
        self.record = record
        self.hooksMayApply = hooksMayApply
        self.containerObserves = containerObserves
        self.valueIsOptional = valueIsOptional
        self.failure = failure
        self.reports = reports
        self.needsHooks = hooksMayApply || containerObserves || reports
        let typed = record?.typed
        self.typed = typed
        self.typedValueType = typed?.valueType
        self.typedSingleton = typed == nil ? nil : record?.slot
    }

    /// Whether the winning initializer can be called directly for a `Value`.
    @inlinable
    func makesTyped<Value>(_: Value.Type) -> Bool {
        typedValueType == ObjectIdentifier(Value.self)
    }

    /// Calls the winning initializer directly, or reads its singleton;
    /// only after `makesTyped` said yes (the identity check makes the
    /// downcasts exact).
    @inlinable
    func makeTyped<Value>(_: Value.Type, for sender: AnyObject) throws -> Value {
        if let typedSingleton {
            // A made singleton: one acquire load, no lock, no cast.
            if let made = typedSingleton.typedValue(Value.self) { return made }
            return try record.unsafelyUnwrapped.produceTypedSingleton(Value.self, for: sender)
        }
        // Borrowed: `typed` is a `let` of this lookup, which the caller holds.
        let box = Unmanaged.passUnretained(unsafeDowncast(typed.unsafelyUnwrapped as AnyObject, to: TypedInitializer<Value>.self))
        return try box._withUnsafeGuaranteedRef { try $0.call(sender) }
    }

    /// The same lookup, for a property whose type is (or is not) Optional,
    /// in a registry that does (or does not) report resolution events.
    func with(valueIsOptional: Bool, reports: Bool = false) -> CachedResolution {
        CachedResolution(
            record: record, hooksMayApply: hooksMayApply, containerObserves: containerObserves,
            valueIsOptional: valueIsOptional, failure: failure, reports: reports)
    }
}

/// The identity of "equally specific" registrations: same type, same container rule.
struct InitializerSlotKey: Hashable {
    let type: SpellTypeKey
    let rule: ContainerMatch.Rule
}

/// Everything behind the registry's lock.
struct RegistryState {
    var initializers: [InitializerRecord] = []
    var hooks: [HookRecord] = []
    var preferenceOverrides: [PreferenceOverrideRecord] = []
    var templateProviders: [TemplateProviderRecord] = []
    var customSpells: [CustomSpellRecord] = []
    /// Consulted, newest first, when no initializer serves a property.
    var resolvers: [ResolverRecord] = []
    /// Make @Preference keys; the newest applies.
    var preferenceKeyGenerators: [PreferenceKeyGeneratorRecord] = []
    var diagnostics: [SpellDiagnostic] = []
    var nextID: UInt64 = 1
    /// The registry's own counter, bumped by `invalidateCaches`.
    let generation: GenerationCounter
    var defaultPreferenceStore: (any PreferenceStore)?
    var fastCache: [FastResolutionKey: CachedResolution] = [:]
    var namedCache: [NamedResolutionKey: CachedResolution] = [:]
    /// The newest initializer per (type, container rule), so that noticing
    /// a shadowed registration costs one hash lookup, not a scan.
    var latestInitializer: [InitializerSlotKey: InitializerRecord] = [:]
    /// The initializers of each type, in registration order: while the
    /// catalog knows no Swift type, only equal keys match, so a lookup
    /// scans the candidates for its type, not every registration.
    var initializersByType: [SpellTypeKey: [InitializerRecord]] = [:]
    /// The Swift types known by name, to match script names to them. Kept
    /// by `reset` and `removeAll`: it describes types, not registrations.
    var catalog = TypeCatalog()
    /// Registrations staged by a script host's reload, by stage id, not in
    /// force until the stage is committed (see Registry+Staging).
    var stages: [UInt64: RegistryState] = [:]

    /// Appends an initializer, noting (as a diagnostic) the equally specific
    /// registration it overrides.
    mutating func insertInitializer(_ record: InitializerRecord) {
        let slot = InitializerSlotKey(type: record.type, rule: record.container.rule)
        if let shadowed = latestInitializer.updateValue(record, forKey: slot) {
            addDiagnostic(Self.shadowing(shadowed, by: record))
        }
        initializers.append(record)
        initializersByType[record.type, default: []].append(record)
    }

    /// The diagnostic of `record` overriding the equally specific `shadowed`.
    static func shadowing(_ shadowed: InitializerRecord, by record: InitializerRecord) -> SpellDiagnostic {
        SpellDiagnostic(
            message: "\(record.type.name) in \(record.container) registered at \(record.source) overrides the equally specific registration at \(shadowed.source) (the later wins)",
            handles: [shadowed.handle, record.handle]
        )
    }

    /// Rebuilds `latestInitializer` and `initializersByType` after removals.
    mutating func indexInitializers() {
        latestInitializer.removeAll(keepingCapacity: true)
        initializersByType.removeAll(keepingCapacity: true)
        for record in initializers {
            latestInitializer[InitializerSlotKey(type: record.type, rule: record.container.rule)] = record
            initializersByType[record.type, default: []].append(record)
        }
    }

    var count: Int {
        initializers.count + hooks.count + preferenceOverrides.count + templateProviders.count + customSpells.count
            + resolvers.count + preferenceKeyGenerators.count
    }

    mutating func makeHandle() -> SpellHandle {
        defer { nextID += 1 }
        return SpellHandle(id: nextID)
    }

    /// Registers one record: `make` builds it with a new handle, it is
    /// appended to `list`, and the lookup caches are dropped when the record
    /// can change a lookup (`invalidatingCaches`). Returns the handle.
    mutating func add<Record>(
        into list: WritableKeyPath<RegistryState, [Record]>, invalidatingCaches: Bool,
        _ make: (SpellHandle) -> Record
    ) -> SpellHandle {
        let handle = makeHandle()
        let record = make(handle)
        if stageIfOpen(record, into: list) { return handle }
        self[keyPath: list].append(record)
        if invalidatingCaches { invalidateCaches() }
        return handle
    }

    /// The hooks that run after `property` is injected into `container`, in
    /// registration order; with no property, those that could run after any.
    func hooks(matching container: ContainerDescriptor, property: String?) -> LazyFilterSequence<[HookRecord]> {
        hooks.lazy.filter { [catalog] hook in
            (property == nil || hook.property == nil || hook.property == property)
                && hook.container.specificity(for: container, catalog: catalog) != nil
        }
    }

    /// Records a diagnostic, keeping at most `Registry.maxDiagnostics`.
    mutating func addDiagnostic(_ diagnostic: SpellDiagnostic) {
        if diagnostics.count >= Registry.maxDiagnostics {
            diagnostics.removeFirst(diagnostics.count - Registry.maxDiagnostics + 1)
        }
        diagnostics.append(diagnostic)
    }

    /// The most entries each lookup cache holds before it starts over: names
    /// come from scripts too, and a cache keyed by them must stay bounded.
    static let maxCachedResolutions = 4096

    mutating func invalidateCaches() {
        generation.bump()
        fastCache.removeAll(keepingCapacity: true)
        namedCache.removeAll(keepingCapacity: true)
    }

    struct Snapshot {
        let initializers: [InitializerRecord]
        let hooks: [HookRecord]
        let preferenceOverrides: [PreferenceOverrideRecord]
        let templateProviders: [TemplateProviderRecord]
        let customSpells: [CustomSpellRecord]
        let resolvers: [ResolverRecord]
        let preferenceKeyGenerators: [PreferenceKeyGeneratorRecord]
        let diagnostics: [SpellDiagnostic]
    }

    func snapshot() -> Snapshot {
        Snapshot(
            initializers: initializers, hooks: hooks, preferenceOverrides: preferenceOverrides,
            templateProviders: templateProviders, customSpells: customSpells, resolvers: resolvers,
            preferenceKeyGenerators: preferenceKeyGenerators, diagnostics: diagnostics
        )
    }

    mutating func restore(_ snapshot: Snapshot) {
        initializers = snapshot.initializers
        hooks = snapshot.hooks
        preferenceOverrides = snapshot.preferenceOverrides
        templateProviders = snapshot.templateProviders
        customSpells = snapshot.customSpells
        resolvers = snapshot.resolvers
        preferenceKeyGenerators = snapshot.preferenceKeyGenerators
        diagnostics = snapshot.diagnostics
        indexInitializers()
        invalidateCaches()
    }

    /// The most specific initializer for `type` in `container`; between
    /// equally specific ones the later wins and a diagnostic is recorded.
    ///
    /// Registrations made with a name match the Swift types the catalog
    /// lists under that name; when the winner's name refers to several
    /// types, the lookup finds nothing and carries the ambiguity error.
    mutating func lookup(type: SpellTypeKey, container: ContainerDescriptor, observes: Bool) -> CachedResolution {
        if catalog.note(type) { invalidateCaches() }
        if catalog.note(container.key) { invalidateCaches() }
        var best: InitializerRecord?
        var bestMatch = TypeMatch.none
        var bestScore = Int.min
        var tied: [InitializerRecord] = []
        // Names match Swift types through the catalog; without any, a key
        // matches only an equal key.
        let candidates = catalog.isEmpty ? initializersByType[type] ?? [] : initializers
        for record in candidates {
            let match = catalog.match(record.type, type)
            guard match.fits, let score = record.container.specificity(for: container, catalog: catalog) else { continue }
            if score > bestScore {
                best = record
                bestMatch = match
                bestScore = score
                tied = []
            } else if score == bestScore {
                if let current = best { tied.append(current) }
                best = record
                bestMatch = match
            }
        }
        if case .ambiguous(let ambiguity) = bestMatch, let best {
            // The name is the registration's, or (a Swift registration
            // found by a script's name) the lookup's.
            let failure = SpellError.ambiguousTypeName(
                name: ambiguity.name, candidates: ambiguity.candidates, source: best.type.isSwiftType ? nil : best.source)
            return CachedResolution(record: nil, hooksMayApply: false, containerObserves: observes, failure: failure)
        }
        // Ties between registrations with the same key and rule were
        // already reported when the later one was registered.
        if let winner = best { tied.removeAll { $0.type == winner.type && $0.container.rule == winner.container.rule } }
        if let best, !tied.isEmpty {
            let message = "\(type.name) in \(container.key.name): \(tied.count + 1) equally specific initializers match; using the latest, registered at \(best.source) (others: \(tied.map(\.source).joined(separator: ", ")))"
            if !diagnostics.contains(where: { $0.message == message }) {
                addDiagnostic(SpellDiagnostic(message: message, handles: tied.map(\.handle) + [best.handle]))
            }
        }
        let hooksMayApply = !hooks(matching: container, property: nil).isEmpty
        return CachedResolution(record: best, hooksMayApply: hooksMayApply, containerObserves: observes)
    }
}

/// An initializer with its static result type (see `InitializerRecord.typed`).
@usableFromInline
protocol TypedInitializing: AnyObject, Sendable {
    /// The identity of the result type.
    var valueType: ObjectIdentifier { get }
    /// Runs the initializer and boxes the value as a singleton read back typed.
    func makeSingletonBox(for sender: AnyObject) throws -> SingletonBox
    /// `value`, made before, boxed as this initializer's singletons are;
    /// nil when it is not of the result type.
    func singletonBox(holding value: Any) -> SingletonBox?
}

/// A Swift initializer returning `Value`.
@usableFromInline
final class TypedInitializer<Value>: TypedInitializing {
    @usableFromInline let make: @Sendable (AnyObject) throws -> Value
    @usableFromInline let valueType = ObjectIdentifier(Value.self)

    init(_ make: @escaping @Sendable (AnyObject) throws -> Value) {
        self.make = make
    }

    /// Calls the initializer. A method, so that the closure is borrowed
    /// from `self` (guaranteed for the call) with no reference counting.
    @inlinable
    func call(_ sender: AnyObject) throws -> Value {
        try make(sender)
    }

    @usableFromInline
    func makeSingletonBox(for sender: AnyObject) throws -> SingletonBox {
        TypedSingletonBox(try make(sender))
    }

    @usableFromInline
    func singletonBox(holding value: Any) -> SingletonBox? {
        (value as? Value).map(TypedSingletonBox.init)
    }
}
