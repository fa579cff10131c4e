/// A registry-level change to one @Preference: any field left nil keeps
/// the property's own choice.
public struct PreferenceOverride: Sendable {
    /// The key to use instead of the property's.
    public var key: String?
    /// The default value to use instead of the property's.
    public var defaultValue: PreferenceValue?
    /// The store to use instead of the property's.
    public var store: (any PreferenceStore)?
    /// Where the override was registered (``Registry/preferenceOverride(container:property:)``
    /// fills it in), for messages.
    public var source: String?

    /// An override of any of key, default and store.
    public init(key: String? = nil, defaultValue: PreferenceValue? = nil, store: (any PreferenceStore)? = nil) {
        self.key = key
        self.defaultValue = defaultValue
        self.store = store
    }
}

extension Registry {
    /// Overrides the key, default and/or store of the @Preference named
    /// `property` in matching containers (any container by default).
    @discardableResult
    public func overridePreference(
        container: ContainerMatch = .any,
        property: String,
        with override: PreferenceOverride,
        source: String
    ) -> SpellHandle {
        state.withLock { state in
            state.add(into: \.preferenceOverrides, invalidatingCaches: false) { handle in
                PreferenceOverrideRecord(handle: handle, container: container, property: property, override: override, source: source)
            }
        }
    }

    /// Typed convenience: overrides `property` of exactly `container`.
    @discardableResult
    public func overridePreference<Container: AnyObject>(
        for container: Container.Type,
        property: String,
        key: String? = nil,
        defaultValue: PreferenceValue? = nil,
        store: (any PreferenceStore)? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) -> SpellHandle {
        overridePreference(
            container: .exactly(container), property: property,
            with: PreferenceOverride(key: key, defaultValue: defaultValue, store: store),
            source: spellSource(fileID, line)
        )
    }

    /// The override in force for `property` of `container`: the most
    /// specific match, the later between equals; nil when none.
    public func preferenceOverride(container: ContainerDescriptor, property: String) -> PreferenceOverride? {
        state.withLock { state in
            // An override registered by name (from a script) matches the
            // Swift class through the catalog, which must know the class
            // even when none of its properties was ever resolved.
            if state.catalog.note(container.key) { state.invalidateCaches() }
            var best: PreferenceOverrideRecord?
            var bestScore = Int.min
            for record in state.preferenceOverrides where record.property == property {
                guard let score = record.container.specificity(for: container, catalog: state.catalog), score >= bestScore
                else { continue }
                best = record
                bestScore = score
            }
            return best.map { record in
                var override = record.override
                override.source = record.source
                return override
            }
        }
    }

    /// Whether any preference override is registered (lets @Preference skip the lookup).
    var hasPreferenceOverrides: Bool {
        state.withLock { !$0.preferenceOverrides.isEmpty }
    }
}

extension Registry {
    /// The store @Preference properties use when they name none and no
    /// override applies. Defaults to `UserDefaultsPreferenceStore()`.
    public var defaultPreferenceStore: any PreferenceStore {
        get { state.withLock { $0.defaultPreferenceStore } ?? standardPreferenceStore }
        set { state.withLock { $0.defaultPreferenceStore = newValue } }
    }
}

/// The process-wide UserDefaults store, made on first use.
let standardPreferenceStore = UserDefaultsPreferenceStore()
