import Synchronization

/// The registry of initializers, hooks, template providers, preference
/// overrides and custom spells (the seeds' `BMInitializer` table).
///
/// It is keyed by names (`SpellTypeKey`) so a script bridge can register
/// for "RequestManager" or {"Client"} and serve Swift properties too.
/// All state sits behind one `Lock`; lookups from property wrappers are
/// cached per (property type, container type) and the caches are dropped on
/// every change, so registering after first use affects properties not yet
/// resolved.
public final class Registry: Sendable {
    let state: Lock<RegistryState>
    /// Bumped on every change that can alter a lookup; per-thread lookup
    /// caches compare it to know whether an entry is still valid.
    @usableFromInline package let generation: GenerationCounter
    /// Distinguishes registries in per-thread caches (never reused, unlike
    /// an object address).
    @usableFromInline let serial = GenerationCounter.nextRegistrySerial()
    /// Resolution events through swift-log (see `logger`, Registry+Logging).
    @usableFromInline package let log = ResolutionLog()
    /// How many threads preview a commit of this registry now (see
    /// Registry+Preview): while 0, a lookup checks no thread-local state.
    let previewsOpen = Atomic<Int>(0)
    /// The ``readFailurePolicy`` (0: trap, 1: log and use the fallback).
    let failurePolicy = Atomic<UInt8>(0)
    /// What is told of each failed read (``readFailureHandler``).
    let failureHandler = Lock<(@Sendable (ReadFailure) -> Void)?>(nil)
    /// The registry this one is layered over (Registry+Layers): asked for
    /// what this one does not register. Read only on a lookup cache miss.
    let parent: Registry?
    /// How many `withOverrides` are running on this registry now, for the
    /// check that stops two tasks' overrides from overlapping.
    let overridesRunning = Atomic<Int>(0)

    /// Makes an empty registry.
    public convenience init() {
        self.init(parent: nil)
    }

    init(parent: Registry?) {
        let generation = GenerationCounter()
        self.generation = generation
        self.parent = parent
        state = Lock(RegistryState(generation: generation))
        parent?.generation.addDependent(generation)
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

    func register(
        type: SpellTypeKey, container: ContainerMatch, scope: SpellScope, source: String,
        initializer: @escaping @Sendable (AnyObject) throws -> Any, typed: (any TypedInitializing)?,
        name: String? = nil, arguments: InitializerArguments? = nil, asynchronous: AsyncInitialization? = nil
    ) -> SpellHandle {
        // A weak or graph scope keeps its values around the initializer.
        let (initializer, typed) = Self.keeping(initializer, typed, scope: scope, type: type)
        return state.withLock { state in
            _ = state.catalog.note(type)
            if let key = container.key { _ = state.catalog.note(key) }
            if scope != .instance { state.note(scope) }
            // A script host reloading its scripts stages them (Registry+Staging).
            return state.addInitializer { handle in
                InitializerRecord(
                    handle: handle, type: type, container: container, scope: scope, source: source,
                    make: initializer, slot: scope.keepsOneValue ? SingletonSlot() : nil, typed: typed, name: name,
                    arguments: arguments, asynchronous: asynchronous
                )
            }
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
        register(type, name: nil, scope: scope, source: spellSource(fileID, line), initializer: initializer)
    }

    /// Registers a typed initializer for `type` in any container, under
    /// `name` if one is given (the unnamed and the named `register`).
    func register<Value>(
        _ type: Value.Type, name: String?, scope: SpellScope, source: String,
        initializer: @escaping @Sendable (_ sender: AnyObject) throws -> Value
    ) -> SpellHandle {
        register(
            type: SpellTypeKey(type), container: .any, scope: scope, source: source,
            initializer: { try initializer($0) }, typed: TypedInitializer(initializer), name: name
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
        guard state.withLock({ $0.initializers.contains(handle: handle) }) else { return false }
        return unregister(handle)
    }

    /// Removes any registration (initializer, hook, override, provider,
    /// custom spell, resolver, preference key generator) by handle. Returns whether it was registered.
    @discardableResult
    public func unregister(_ handle: SpellHandle) -> Bool {
        unregister([handle]) == 1
    }

    /// Removes many registrations at once (a script host rolling back a
    /// file, or going away). Returns how many were registered.
    ///
    /// Amortized O(1) per handle and per registration forwarding to it,
    /// times the open stages (each is looked at by hash), plus
    /// O(``maxDiagnostics``) when a diagnostic names one of them: a script
    /// unregistering its N registrations one by one costs O(N), not O(N²).
    @discardableResult
    public func unregister(_ handles: some Collection<SpellHandle>) -> Int {
        guard !handles.isEmpty else { return 0 }
        let requested = Set(handles)
        return state.withLock { state in
            // With the registrations forwarding to them (Registry+Forwarding).
            let doomed = state.withForwarders(requested)
            let staged = state.unstage(doomed)
            var removed = 0
            for handle in doomed where state.removeRegistration(handle) { removed += 1 }
            // A diagnostic about a registration that is gone no longer holds.
            state.dropDiagnostics(naming: doomed)
            state.invalidateCaches()
            return removed + staged - (doomed.count - requested.count)
        }
    }

    /// Removes every registration of every kind and every diagnostic, as
    /// Swinject's `removeAll()` does: singletons made so far are dropped,
    /// and a script host's reload staging its registrations meanwhile
    /// commits nothing. The registry's settings stay (its default preference
    /// store, logger and read-failure policy).
    ///
    /// Not to be confused with ``reset(_:)``, which forgets the values an
    /// object's spelled properties hold and removes no registration.
    public func removeAll() {
        state.withLock { $0.removeAllRegistrations() }
    }

    /// ``removeAll()``, with the default preference store forgotten too.
    @available(*, deprecated, message: "use removeAll(): reset() is one typo away from reset(_:), which forgets one object's values")
    public func reset() {
        state.withLock { state in
            state.removeAllRegistrations()
            state.defaultPreferenceStore = nil
        }
    }

    // MARK: Introspection

    /// Every registration, in registration order, for tools (inside a
    /// reload's validation, on its thread: as the reload would leave them).
    public var entries: [SpellEntry] {
        withResolvingState { state in
            var result: [SpellEntry] = []
            result += state.initializers.map(\.entry)
            result += state.hooks.map(\.entry)
            result += state.preferenceOverrides.map(\.entry)
            result += state.templateProviders.map(\.entry)
            result += state.customSpells.map(\.entry)
            result += state.resolvers.map(\.entry)
            result += state.preferenceKeyGenerators.map(\.entry)
            result += state.decorators.map(\.entry)
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
    /// registrations are kept.
    ///
    /// The overrides change this registry itself, so every thread and task
    /// using it meanwhile sees them. Tests that run in parallel (Swift
    /// Testing's default) must not share it: give each test a registry
    /// layered over this one instead, with ``withLayeredOverrides(_:run:)``
    /// or the `BloodMagicTesting` trait `.registry { ... }`. A use that
    /// starts while another task's (or thread's) use of this registry is
    /// running is a programming error and traps with a message that says
    /// so (nested uses in one task are fine: each restores what it found).
    public func withOverrides<Result>(
        _ overrides: (Registry) throws -> Void,
        run body: () throws -> Result
    ) rethrows -> Result {
        try Registry.$overridesEntered.withValue(enterOverrides()) {
            let snapshot = state.withLock { $0.snapshot() }
            defer {
                state.withLock { $0.restore(snapshot) }
                overridesRunning.subtract(1, ordering: .releasing)
            }
            try overrides(self)
            return try body()
        }
    }

    /// Async form of `withOverrides(_:run:)`.
    public func withOverrides<Result>(
        _ overrides: (Registry) throws -> Void,
        isolation: isolated (any Actor)? = #isolation,
        run body: () async throws -> Result
    ) async rethrows -> Result {
        try await Registry.$overridesEntered.withValue(enterOverrides(), operation: {
            let snapshot = state.withLock { $0.snapshot() }
            defer {
                state.withLock { $0.restore(snapshot) }
                overridesRunning.subtract(1, ordering: .releasing)
            }
            try overrides(self)
            return try await body()
        }, isolation: isolation)
    }
}
