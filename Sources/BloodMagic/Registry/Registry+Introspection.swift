extension Registry {
    /// The registration that would serve `type` in `container`, without
    /// running it (for tools such as `bmlua check`); nil when none matches.
    ///
    /// Not through `namedResolution`: its cache is keyed by container name
    /// alone, and a tool's name-only descriptor (no object, no ancestry)
    /// would leave there an answer that is wrong for the real object.
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
