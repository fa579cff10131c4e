/// Builds @Partial values from templates named after the property's type
/// (the seeds' nib named after the class).
public protocol PartialTemplateProvider: Sendable {
    /// Where the template for `type` would be, for error messages
    /// (for example "/app/Templates/HeaderView.json").
    func templateLocation(for type: SpellTypeKey) -> String

    /// Builds an instance of `valueType` (whose key is `type`) from its
    /// template; nil when this provider has no template for it.
    /// `sender` is the object that owns the property.
    func instantiate(_ valueType: Any.Type, type: SpellTypeKey, sender: AnyObject) throws -> Any?
}

extension Registry {
    /// Registers a template provider, for one type or (nil) for every type.
    /// Later registrations are tried first; type-specific before general.
    @discardableResult
    public func registerTemplateProvider(
        _ provider: any PartialTemplateProvider,
        for type: SpellTypeKey? = nil,
        source: String
    ) -> SpellHandle {
        state.withLock { state in
            if let type { _ = state.catalog.note(type) }
            // Lookups carry the providers of their generation: drop them.
            return state.add(into: \.templateProviders, invalidatingCaches: true) { handle in
                TemplateProviderRecord(handle: handle, type: type, provider: provider, source: source)
            }
        }
    }

    /// Typed convenience over `registerTemplateProvider(_:for:source:)`.
    @discardableResult
    public func registerTemplateProvider(
        _ provider: any PartialTemplateProvider,
        forType type: Any.Type? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) -> SpellHandle {
        registerTemplateProvider(provider, for: type.map { SpellTypeKey($0) }, source: spellSource(fileID, line))
    }

    /// The providers to try for `type`, in order.
    public func templateProviders(for type: SpellTypeKey) -> [any PartialTemplateProvider] {
        withResolvingState { $0.templateProviders(for: type) }
    }

    /// ``instantiateTemplate(_:type:sender:property:providers:)`` for a
    /// container known by name (a script bridge's classes), with the
    /// providers of one lookup, returned with it (its hooks follow).
    package func instantiateTemplate(
        _ valueType: Any.Type, type: SpellTypeKey, container: ContainerDescriptor, sender: AnyObject, property: String
    ) throws -> (value: Any, lookup: SpellLookup) {
        let resolution = namedResolution(type: type, container: container)
        let value = try instantiateTemplate(valueType, type: type, sender: sender, property: property, providers: resolution.templates)
        return (value, SpellLookup(resolution))
    }

    /// Builds a `type` value for `property` of `sender` from the first
    /// provider that has a template, or throws `templateMissing` naming
    /// every file looked for.
    public func instantiateTemplate(
        _ valueType: Any.Type,
        type: SpellTypeKey,
        sender: AnyObject,
        property: String,
        providers explicit: [any PartialTemplateProvider]? = nil
    ) throws -> Any {
        let providers = explicit ?? templateProviders(for: type)
        var looked: [String] = []
        for provider in providers {
            if let value = try provider.instantiate(valueType, type: type, sender: sender) {
                if log.mayReport {
                    log.served(
                        container: SpellNames.containerName(of: sender), property: property, type: type.name,
                        by: .template(provider.templateLocation(for: type)))
                }
                return value
            }
            looked.append(provider.templateLocation(for: type))
        }
        throw SpellError.templateMissing(
            property: property, container: SpellNames.containerName(of: sender), type: type.name, lookedFor: looked
        )
    }
}
