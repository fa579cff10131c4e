/// The identity of "equally specific" registrations: same type, same
/// container rule, same name.
struct InitializerSlotKey: Hashable {
    let type: SpellTypeKey
    let rule: ContainerMatch.Rule
    var name: String? = nil
}

extension InitializerRecord {
    /// The slot of equally specific registrations this one belongs to.
    var slotKey: InitializerSlotKey {
        InitializerSlotKey(type: type, rule: container.rule, name: name)
    }
}

/// Everything behind the registry's lock.
struct RegistryState {
    // Each kind of registration, in registration order, removable by
    // handle in amortized O(1) (see RegistrationList).
    var initializers: RegistrationList<InitializerRecord> = []
    var hooks: RegistrationList<HookRecord> = []
    var preferenceOverrides: RegistrationList<PreferenceOverrideRecord> = []
    var templateProviders: RegistrationList<TemplateProviderRecord> = []
    var customSpells: RegistrationList<CustomSpellRecord> = []
    /// Consulted, newest first, when no initializer serves a property.
    var resolvers: RegistrationList<ResolverRecord> = []
    /// Make @Preference keys; the newest applies.
    var preferenceKeyGenerators: RegistrationList<PreferenceKeyGeneratorRecord> = []
    /// Decorators of types' values, in registration order (Registry+Decorators).
    var decorators: RegistrationList<DecoratorRecord> = []
    /// Changed through `addDiagnostic` and `removeDiagnostics(where:)`,
    /// which keep `diagnosticMentions`.
    private(set) var diagnostics: [SpellDiagnostic] = []
    /// How many of `diagnostics` name each handle, so that unregistering a
    /// registration no diagnostic names does not look at them.
    private var diagnosticMentions: [SpellHandle: Int] = [:]
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
    /// The initializers per (type, container rule, name), in registration
    /// order: the newest of a slot (its `last`) is the one a new
    /// registration shadows, found with one hash lookup, not a scan.
    var initializersBySlot: [InitializerSlotKey: RegistrationList<InitializerRecord>] = [:]
    /// The initializers of each type, in registration order: while the
    /// catalog knows no Swift type, only equal keys match, so a lookup
    /// scans the candidates for its type, not every registration.
    var initializersByType: [SpellTypeKey: RegistrationList<InitializerRecord>] = [:]
    /// The handles of the initializers forwarding to each initializer
    /// (Registry+Forwarding, factories), so that unregistering one finds
    /// its forwarders without a scan.
    var forwardersByTarget: [SpellHandle: Set<SpellHandle>] = [:]
    /// How many records the handle lookups (`initializerRecord(_:)`) and
    /// the removals by handle (`unregister`) looked at, for tests that
    /// check they do not scan the registry.
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
    /// For a stage: the scopes reset (`reset(scope:)`) while it was open.
    /// Values of those scopes carried over from before (`presetSingletons`,
    /// at preview or commit) are not preset: the reset must not be undone.
    var scopesReset: Set<SpellScope> = []
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

    init(generation: GenerationCounter) {
        self.generation = generation
    }

    /// Appends an initializer, noting (as a diagnostic) the equally specific
    /// registration it overrides.
    mutating func insertInitializer(_ record: InitializerRecord) {
        initializers.append(record)
        if let shadowed = index(record) {
            addDiagnostic(Self.shadowing(shadowed, by: record))
        }
    }

    /// The newest initializer of `slot`, if any.
    func latestInitializer(_ slot: InitializerSlotKey) -> InitializerRecord? {
        initializersBySlot[slot]?.last
    }

    /// Adds `record` (just appended to `initializers`) to the indexes.
    /// Returns the newest initializer of its slot before it (the one it
    /// shadows), found by the same hash lookup that appends it.
    @discardableResult
    private mutating func index(_ record: InitializerRecord) -> InitializerRecord? {
        let shadowed = initializersBySlot[record.slotKey, default: []].appendReturningLast(record)
        initializersByType[record.type, default: []].append(record)
        if let target = record.forwarded { forwardersByTarget[target.handle, default: []].insert(record.handle) }
        return shadowed
    }

    /// Removes the initializer registered as `handle`, from the list and
    /// the indexes, in amortized O(1). Returns it, if it was registered.
    @discardableResult
    mutating func removeInitializer(_ handle: SpellHandle) -> InitializerRecord? {
        guard let record = initializers.remove(handle, visits: &recordsVisited) else { return nil }
        let slot = record.slotKey
        initializersBySlot[slot]?.remove(handle, visits: &recordsVisited)
        if initializersBySlot[slot]?.isEmpty == true { initializersBySlot[slot] = nil }
        initializersByType[record.type]?.remove(handle, visits: &recordsVisited)
        if initializersByType[record.type]?.isEmpty == true { initializersByType[record.type] = nil }
        if let target = record.forwarded {
            forwardersByTarget[target.handle]?.remove(handle)
            if forwardersByTarget[target.handle]?.isEmpty == true { forwardersByTarget[target.handle] = nil }
        }
        return record
    }

    /// Puts `record` in force in place of the initializer with its handle
    /// (same type, rule and name), in its place in every list.
    mutating func replaceInitializer(with record: InitializerRecord) {
        guard initializers.replace(with: record) else { return }
        initializersBySlot[record.slotKey]?.replace(with: record)
        initializersByType[record.type]?.replace(with: record)
    }

    /// Removes the registration of any kind registered as `handle`, in
    /// amortized O(1). Returns whether one was.
    mutating func removeRegistration(_ handle: SpellHandle) -> Bool {
        if removeInitializer(handle) != nil { return true }
        return hooks.remove(handle, visits: &recordsVisited) != nil
            || preferenceOverrides.remove(handle, visits: &recordsVisited) != nil
            || templateProviders.remove(handle, visits: &recordsVisited) != nil
            || customSpells.remove(handle, visits: &recordsVisited) != nil
            || resolvers.remove(handle, visits: &recordsVisited) != nil
            || preferenceKeyGenerators.remove(handle, visits: &recordsVisited) != nil
            || decorators.remove(handle, visits: &recordsVisited) != nil
    }

    /// Drops the diagnostics that name one of `handles` (a diagnostic about
    /// a registration that is gone no longer holds): O(diagnostics), at
    /// most ``Registry/maxDiagnostics``, and nothing when none names them.
    mutating func dropDiagnostics(naming handles: Set<SpellHandle>) {
        guard handles.contains(where: { diagnosticMentions[$0] != nil }) else { return }
        removeDiagnostics { $0.handles.contains(where: handles.contains) }
    }

    /// Removes the diagnostics for which `isRemoved` is true.
    mutating func removeDiagnostics(where isRemoved: (SpellDiagnostic) -> Bool) {
        var removed: [SpellDiagnostic] = []
        diagnostics.removeAll { diagnostic in
            guard isRemoved(diagnostic) else { return false }
            removed.append(diagnostic)
            return true
        }
        for diagnostic in removed { forget(diagnostic) }
    }

    /// Counts `diagnostic`'s handles in `diagnosticMentions` (`by` 1) or out (-1).
    private mutating func count(_ diagnostic: SpellDiagnostic, by step: Int) {
        for handle in diagnostic.handles {
            let mentions = diagnosticMentions[handle, default: 0] + step
            diagnosticMentions[handle] = mentions > 0 ? mentions : nil
        }
    }

    private mutating func forget(_ diagnostic: SpellDiagnostic) {
        count(diagnostic, by: -1)
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
        initializersBySlot.removeAll(keepingCapacity: true)
        initializersByType.removeAll(keepingCapacity: true)
        forwardersByTarget.removeAll(keepingCapacity: true)
        for record in initializers { index(record) }
    }

    /// No registration, no diagnostic and no open stage any more (see
    /// `Registry.removeAll()`); the catalog of types, the handle counter and
    /// the settings stay.
    mutating func removeAllRegistrations() {
        initializers.removeAll()
        initializersByType.removeAll()
        initializersBySlot.removeAll()
        forwardersByTarget.removeAll()
        hooks.removeAll()
        preferenceOverrides.removeAll()
        templateProviders.removeAll()
        customSpells.removeAll()
        resolvers.removeAll()
        preferenceKeyGenerators.removeAll()
        decorators.removeAll()
        diagnostics.removeAll()
        diagnosticMentions.removeAll()
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
        into list: WritableKeyPath<RegistryState, RegistrationList<Record>>, invalidatingCaches: Bool,
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
    func hooks(matching container: ContainerDescriptor, property: String?) -> LazyFilterSequence<RegistrationList<HookRecord>> {
        hooks.lazy.filter { [catalog] hook in
            (property == nil || hook.property == nil || hook.property == property)
                && hook.container.specificity(for: container, catalog: catalog) != nil
        }
    }

    /// Records a diagnostic, keeping at most `Registry.maxDiagnostics`.
    mutating func addDiagnostic(_ diagnostic: SpellDiagnostic) {
        if diagnostics.count >= Registry.maxDiagnostics {
            let dropped = diagnostics.count - Registry.maxDiagnostics + 1
            for old in diagnostics.prefix(dropped) { forget(old) }
            diagnostics.removeFirst(dropped)
        }
        diagnostics.append(diagnostic)
        count(diagnostic, by: 1)
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
        let initializers: RegistrationList<InitializerRecord>
        let hooks: RegistrationList<HookRecord>
        let preferenceOverrides: RegistrationList<PreferenceOverrideRecord>
        let templateProviders: RegistrationList<TemplateProviderRecord>
        let customSpells: RegistrationList<CustomSpellRecord>
        let resolvers: RegistrationList<ResolverRecord>
        let preferenceKeyGenerators: RegistrationList<PreferenceKeyGeneratorRecord>
        let diagnostics: [SpellDiagnostic]
        var decorators: RegistrationList<DecoratorRecord> = []
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
        diagnosticMentions.removeAll()
        for diagnostic in diagnostics { count(diagnostic, by: 1) }
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
            resolvers: best == nil && name == nil ? Array(resolvers) : [], templates: templateProviders(for: type),
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
