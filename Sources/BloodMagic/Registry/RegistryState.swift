/// The identity of "equally specific" registrations: same type, same
/// container rule, same name.
struct InitializerSlotKey: Hashable {
    let type: SpellTypeKey
    let rule: ContainerMatch.Rule
    var name: String? = nil
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
    /// Decorators of types' values, in registration order (Registry+Decorators).
    var decorators: [DecoratorRecord] = []
    var diagnostics: [SpellDiagnostic] = []
    var nextID: UInt64 = 1
    /// The registry's own counter, bumped by `invalidateCaches` (a
    /// preview's has one of its own).
    var generation: GenerationCounter
    var defaultPreferenceStore: (any PreferenceStore)?
    var fastCache: [FastResolutionKey: CachedResolution] = [:]
    var namedCache: [NamedResolutionKey: CachedResolution] = [:]
    /// Named Swift lookups (Registry+Names).
    var qualifiedCache: [QualifiedResolutionKey: CachedResolution] = [:]
    /// Many-of lookups of Swift types (Registry+ResolveAll).
    var allCache: [FastResolutionKey: [InitializerRecord]] = [:]
    /// The newest initializer per (type, container rule), so that noticing
    /// a shadowed registration costs one hash lookup, not a scan.
    var latestInitializer: [InitializerSlotKey: InitializerRecord] = [:]
    /// The initializers of each type, in registration order: while the
    /// catalog knows no Swift type, only equal keys match, so a lookup
    /// scans the candidates for its type, not every registration.
    var initializersByType: [SpellTypeKey: [InitializerRecord]] = [:]
    /// The initializers by handle, so that finding the one a forwarding or
    /// a factory registration names costs one hash lookup, not a scan
    /// (a script forwarding N times would otherwise cost O(N²)).
    var initializerByHandle: [SpellHandle: InitializerRecord] = [:]
    /// How many records the handle lookups (`initializerRecord(_:)`) looked
    /// at, for tests that check they do not scan the registry.
    var recordsVisited = 0
    /// The Swift types known by name, to match script names to them. Kept
    /// by `removeAll`: it describes types, not registrations.
    var catalog = TypeCatalog()
    /// The custom scopes the app declared or registered with (see
    /// Registry+Scopes): what a script may name. Kept by `removeAll`, as
    /// the catalog is.
    var declaredScopes: Set<SpellScope> = []
    /// Whether a graph-scoped initializer was ever registered (then a
    /// bridge's own cache must send resolutions through the registry).
    var usesGraphScope = false
    /// Registrations staged by a script host's reload, by stage id, not in
    /// force until the stage is committed (see Registry+Staging).
    var stages: [UInt64: RegistryState] = [:]
    /// Whether this is a reload's preview of the registrations after a
    /// commit (see Registry+Preview), not the registry's own state.
    var isPreview = false
    /// For a layer (Registry+Layers): the parent's generation its caches
    /// were filled in, and its own copies of the parent's singletons.
    var parentGeneration: UInt64 = 0
    /// Keyed by the parent's record (kept alive here, so its identity is
    /// not reused): handles are per registry and may collide.
    var inheritedSingletons: [ObjectIdentifier: (parent: InitializerRecord, copy: InitializerRecord)] = [:]

    /// Appends an initializer, noting (as a diagnostic) the equally specific
    /// registration it overrides.
    mutating func insertInitializer(_ record: InitializerRecord) {
        let slot = InitializerSlotKey(type: record.type, rule: record.container.rule, name: record.name)
        if let shadowed = latestInitializer.updateValue(record, forKey: slot) {
            addDiagnostic(Self.shadowing(shadowed, by: record))
        }
        initializers.append(record)
        initializersByType[record.type, default: []].append(record)
        initializerByHandle[record.handle] = record
    }

    /// The diagnostic of `record` overriding the equally specific `shadowed`.
    static func shadowing(_ shadowed: InitializerRecord, by record: InitializerRecord) -> SpellDiagnostic {
        SpellDiagnostic(
            message: "\(record.type.name)\(record.name.map { " named \"\($0)\"" } ?? "") in \(record.container) registered at \(record.source) overrides the equally specific registration at \(shadowed.source) (the later wins)",
            handles: [shadowed.handle, record.handle]
        )
    }

    /// Rebuilds `latestInitializer` and `initializersByType` after removals.
    mutating func indexInitializers() {
        latestInitializer.removeAll(keepingCapacity: true)
        initializersByType.removeAll(keepingCapacity: true)
        initializerByHandle.removeAll(keepingCapacity: true)
        for record in initializers {
            latestInitializer[InitializerSlotKey(type: record.type, rule: record.container.rule, name: record.name)] = record
            initializersByType[record.type, default: []].append(record)
            initializerByHandle[record.handle] = record
        }
    }

    /// No registration, no diagnostic and no open stage any more (see
    /// `Registry.removeAll()`); the catalog of types, the handle counter and
    /// the settings stay.
    mutating func removeAllRegistrations() {
        initializers.removeAll()
        initializersByType.removeAll()
        latestInitializer.removeAll()
        initializerByHandle.removeAll()
        hooks.removeAll()
        preferenceOverrides.removeAll()
        templateProviders.removeAll()
        customSpells.removeAll()
        resolvers.removeAll()
        preferenceKeyGenerators.removeAll()
        decorators.removeAll()
        diagnostics.removeAll()
        stages.removeAll()
        inheritedSingletons.removeAll()
        invalidateCaches()
    }

    var count: Int {
        initializers.count + hooks.count + preferenceOverrides.count + templateProviders.count + customSpells.count
            + resolvers.count + preferenceKeyGenerators.count + decorators.count
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
        qualifiedCache.removeAll(keepingCapacity: true)
        allCache.removeAll(keepingCapacity: true)
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
        var decorators: [DecoratorRecord] = []
    }

    func snapshot() -> Snapshot {
        Snapshot(
            initializers: initializers, hooks: hooks, preferenceOverrides: preferenceOverrides,
            templateProviders: templateProviders, customSpells: customSpells, resolvers: resolvers,
            preferenceKeyGenerators: preferenceKeyGenerators, diagnostics: diagnostics, decorators: decorators
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
        decorators = snapshot.decorators
        indexInitializers()
        invalidateCaches()
    }

    /// The most specific initializer for `type` in `container`; between
    /// equally specific ones the later wins and a diagnostic is recorded.
    ///
    /// Registrations made with a name match the Swift types the catalog
    /// lists under that name; when the winner's name refers to several
    /// types, the lookup finds nothing and carries the ambiguity error.
    ///
    /// Only registrations of the lookup's `name` take part (nil: only
    /// unnamed ones); see ``SpellName``.
    mutating func lookup(type: SpellTypeKey, container: ContainerDescriptor, observes: Bool, name: String? = nil) -> CachedResolution {
        if catalog.note(type) { invalidateCaches() }
        if catalog.note(container.key) { invalidateCaches() }
        var best: InitializerRecord?
        var bestMatch = TypeMatch.none
        var bestScore = Int.min
        var tied: [InitializerRecord] = []
        // Names match Swift types through the catalog; without any, a key
        // matches only an equal key.
        let candidates = catalog.isEmpty ? initializersByType[type] ?? [] : initializers
        for record in candidates where record.name == name {
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
        // Decorated when decorators of the type are registered (else the record itself).
        best = decorated(best, for: type)
        if case .ambiguous(let ambiguity) = bestMatch, let best {
            // The name is the registration's, or (a Swift registration
            // found by a script's name) the lookup's.
            let failure = SpellError.ambiguousTypeName(
                name: ambiguity.name, candidates: ambiguity.candidates, source: best.type.isSwiftType ? nil : best.source)
            return CachedResolution(
                record: nil, generation: lookupGeneration, templates: templateProviders(for: type),
                containerObserves: observes, failure: failure, name: name)
        }
        // Ties between registrations with the same key and rule were
        // already reported when the later one was registered.
        if let winner = best {
            tied.removeAll { $0.type == winner.type && $0.container.rule == winner.container.rule && $0.name == winner.name }
        }
        if let best, !tied.isEmpty {
            let message = "\(type.name) in \(container.key.name): \(tied.count + 1) equally specific initializers match; using the latest, registered at \(best.source) (others: \(tied.map(\.source).joined(separator: ", ")))"
            if !diagnostics.contains(where: { $0.message == message }) {
                addDiagnostic(SpellDiagnostic(message: message, handles: tied.map(\.handle) + [best.handle]))
            }
        }
        // Everything else the resolution may use, from this same generation
        // (O(hooks + resolvers + providers), once per lookup of a generation).
        return CachedResolution(
            record: best, generation: lookupGeneration, hooks: Array(hooks(matching: container, property: nil)),
            resolvers: best == nil && name == nil ? resolvers : [], templates: templateProviders(for: type),
            containerObserves: observes, name: name)
    }

    /// The generation a lookup made now belongs to: the registry's (read
    /// under its lock, after the lookup noted its names), or the preview's
    /// mark for a reload's preview state.
    var lookupGeneration: UInt64 {
        isPreview ? CachedResolution.previewGeneration : generation.current
    }

    /// The template providers to try for `type`, in order: the type's own
    /// (newest first), then those for every type (newest first).
    func templateProviders(for type: SpellTypeKey) -> [any PartialTemplateProvider] {
        guard !templateProviders.isEmpty else { return [] }
        let specific = templateProviders.filter { record in
            record.type.map { catalog.match($0, type).isUnambiguous } ?? false
        }.reversed().map(\.provider)
        let general = templateProviders.filter { $0.type == nil }.reversed().map(\.provider)
        return specific + general
    }
}
