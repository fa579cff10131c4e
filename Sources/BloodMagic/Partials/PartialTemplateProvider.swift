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
            return state.add(into: \.templateProviders, invalidatingCaches: false) { handle in
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
        state.withLock { state in
            let specific = state.templateProviders.filter { record in
                record.type.map { state.catalog.match($0, type).isUnambiguous } ?? false
            }.reversed().map(\.provider)
            let general = state.templateProviders.filter { $0.type == nil }.reversed().map(\.provider)
            return specific + general
        }
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
