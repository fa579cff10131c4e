extension Registry {
    /// The registration that would serve `type` in `container`, without
    /// running it (for tools such as `bmlua check`); nil when none matches.
    public func initializerEntry(for type: SpellTypeKey, in container: ContainerDescriptor) -> SpellEntry? {
        let observes = container.object is any PropertyInjectionObserving
        return state.withLock { state in
            state.lookup(type: type, container: container, observes: observes).record?.entry
        }
    }

    /// Whether any template provider is registered specifically for `type`.
    public func hasTemplateProvider(specificallyFor type: SpellTypeKey) -> Bool {
        state.withLock { state in
            state.templateProviders.contains { $0.type == type }
        }
    }
}
