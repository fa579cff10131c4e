extension Registry {
    /// The registration that would serve `type` in `container`, without
    /// running it (for tools such as `bmlua check`); nil when none matches.
    ///
    /// Not through `namedResolution`: its cache is keyed by container name
    /// alone, and a tool's name-only descriptor (no object, no ancestry)
    /// would leave there an answer that is wrong for the real object.
    ///
    /// With a `name`, among the registrations under that name (see ``SpellName``).
    public func initializerEntry(for type: SpellTypeKey, in container: ContainerDescriptor, name: String? = nil) -> SpellEntry? {
        let observes = container.object is any PropertyInjectionObserving
        return state.withLock { state in
            state.lookup(type: type, container: container, observes: observes, name: name).record?.entry
        }
    }

    /// Whether any template provider is registered specifically for `type`.
    public func hasTemplateProvider(specificallyFor type: SpellTypeKey) -> Bool {
        state.withLock { state in
            state.templateProviders.contains { record in
                record.type.map { state.catalog.match($0, type).isUnambiguous } ?? false
            }
        }
    }
}

extension Registry {
    /// Notes that Swift type `type` exists, under its own names and
    /// `alias` (the name a script host exposes it under), so that scripts
    /// naming it reach it, and a name that several known types share is
    /// reported as ambiguous. Registrations and lookups note their types
    /// themselves.
    package func noteSwiftType(_ type: Any.Type, alias: String? = nil) {
        state.withLock { state in
            if state.catalog.note(SpellTypeKey(type), alias: alias) { state.invalidateCaches() }
        }
    }

    /// The Swift types a name (or each name of a protocol set) may refer
    /// to, when it refers to more than one of the types this registry
    /// knows; nil when the name is unambiguous, unknown, or `key` was made
    /// from a Swift type.
    package func ambiguity(of key: SpellTypeKey) -> (name: String, candidates: [String])? {
        state.withLock { state in
            state.catalog.ambiguity(of: key).map { ($0.name, $0.candidates) }
        }
    }

    /// For a resolution that ran out of stack somewhere below the Swift
    /// steps in progress on this thread (a script host's Lua C stack): the
    /// dependency cycle those steps repeat, or nil when they do not repeat.
    package static func repeatingResolutionCycle() -> SpellError? {
        ResolutionStack.repeatingCycle(in: resolutionsInProgress).map { .dependencyCycle(chain: $0) }
    }
}
