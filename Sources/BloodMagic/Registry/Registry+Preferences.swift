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
        withResolvingState { $0.preferenceOverride(container: container, property: property) }
    }

    /// Whether any preference override is registered (lets @Preference skip the lookup).
    var hasPreferenceOverrides: Bool {
        withResolvingState { !$0.preferenceOverrides.isEmpty }
    }

    /// What a preference property of `container` takes from the registry —
    /// its override, the key generator and the default store — read under
    /// one lock, so all three come from one generation of the registry.
    package func preferenceSettings(container: ContainerDescriptor, property: String) -> PreferenceSettings {
        withResolvingState { state in
            PreferenceSettings(
                override: state.preferenceOverrides.isEmpty
                    ? nil : state.preferenceOverride(container: container, property: property),
                keyGenerator: state.preferenceKeyGenerators.last, defaultStore: state.defaultPreferenceStore)
        }
    }
}

/// What one preference property uses from the registry, from one
/// generation (see `Registry.preferenceSettings(container:property:)`).
package struct PreferenceSettings: Sendable {
    /// The override in force for the property, if any.
    package let override: PreferenceOverride?
    /// The newest key generator, if any.
    let keyGenerator: PreferenceKeyGeneratorRecord?
    /// The registry's default store, if one was set.
    let defaultStore: (any PreferenceStore)?

    /// The store to use when neither the property nor the override names one.
    package var fallbackStore: any PreferenceStore { defaultStore ?? standardPreferenceStore }

    /// The key for `property` of `container` when neither the property nor
    /// the override names one (see `Registry.preferenceKey(container:property:)`).
    package func key(container: String, property: String) throws -> String {
        try Registry.preferenceKey(container: container, property: property, generator: keyGenerator)
    }
}

extension RegistryState {
    /// The most specific override for `property` of `container`, the later
    /// between equals; nil when none.
    mutating func preferenceOverride(container: ContainerDescriptor, property: String) -> PreferenceOverride? {
        // An override registered by name (from a script) matches the Swift
        // class through the catalog, which must know the class even when
        // none of its properties was ever resolved.
        if catalog.note(container.key) { invalidateCaches() }
        var best: PreferenceOverrideRecord?
        var bestScore = Int.min
        for record in preferenceOverrides where record.property == property {
            guard let score = record.container.specificity(for: container, catalog: catalog), score >= bestScore
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

extension Registry {
    /// The store @Preference properties use when they name none and no
    /// override applies. Defaults to `UserDefaultsPreferenceStore()`.
    public var defaultPreferenceStore: any PreferenceStore {
        get { withResolvingState { $0.defaultPreferenceStore } ?? standardPreferenceStore }
        set { state.withLock { $0.defaultPreferenceStore = newValue } }
    }
}

/// The process-wide UserDefaults store, made on first use.
let standardPreferenceStore = UserDefaultsPreferenceStore()
