/// A container that wants to be told when one of its properties has been
/// injected (the seeds' `-<name>Injected:` and `bm_propertyInjected:value:`).
///
/// Called once per injection, right after the value is stored, not on
/// every read.
public protocol PropertyInjectionObserving: AnyObject {
    /// `name` is the property name, `value` the injected value.
    func propertyInjected(name: String, value: Any)
}

extension Registry {
    /// Registers a hook run once after `property` is injected in matching
    /// containers (any container by default). The hook receives the
    /// container object, the property name and the value.
    @discardableResult
    public func addHook(
        container: ContainerMatch = .any,
        property: String,
        source: String,
        _ hook: @escaping @Sendable (_ sender: AnyObject, _ property: String, _ value: Any) -> Void
    ) -> SpellHandle {
        addHook(container: container, property: property, source: source, keepingAlive: nil, hook)
    }

    /// ``addHook(container:property:source:_:)`` for a hook that holds what
    /// it runs weakly: the registration keeps `keeper` alive instead, and a
    /// bridge's copy of a lookup's hooks (``SpellLookup/hooks(for:)``) does
    /// not. A script host's hooks hold their Lua state so, since that state
    /// keeps such copies in its resolution cache.
    @discardableResult
    package func addHook(
        container: ContainerMatch = .any, property: String, source: String, keepingAlive keeper: (any AnyObject & Sendable)?,
        script: (any Sendable)? = nil,
        _ hook: @escaping @Sendable (_ sender: AnyObject, _ property: String, _ value: Any) -> Void
    ) -> SpellHandle {
        state.withLock { state in
            state.add(into: \.hooks, invalidatingCaches: true) { handle in
                HookRecord(
                    handle: handle, container: container, property: property, source: source, run: hook, keepAlive: keeper,
                    script: script)
            }
        }
    }

    /// Typed convenience: a hook for `property` of exactly `container`
    /// (or its subclasses with `includingSubclasses`).
    @discardableResult
    public func addHook<Container: AnyObject, Value>(
        for container: Container.Type,
        property: String,
        valueType: Value.Type = Value.self,
        includingSubclasses: Bool = false,
        fileID: String = #fileID,
        line: Int = #line,
        _ hook: @escaping @Sendable (_ sender: Container, _ value: Value) -> Void
    ) -> SpellHandle {
        addHook(
            container: includingSubclasses ? .kindOf(container) : .exactly(container),
            property: property, source: spellSource(fileID, line)
        ) { sender, _, value in
            if let sender = sender as? Container, let value = value as? Value { hook(sender, value) }
        }
    }

    /// Runs the container's `propertyInjected(name:value:)` and every
    /// matching registry hook, in registration order. Spells call this once
    /// per injection; a script bridge calls it after storing a value.
    public func runHooks(sender: AnyObject, container: ContainerDescriptor, property: String, value: Any) {
        let hooks = withResolvingState { Array($0.hooks(matching: container, property: property)) }
        runHooks(hooks, sender: sender, containerName: container.key.name, property: property, value: value)
    }

    /// Runs the container's `propertyInjected(name:value:)`, then `hooks`
    /// (those of one lookup, already chosen for `property`), in order.
    func runHooks(_ hooks: [HookRecord], sender: AnyObject, containerName: @autoclosure () -> String, property: String, value: Any) {
        if let observer = sender as? any PropertyInjectionObserving {
            observer.propertyInjected(name: property, value: value)
            if log.mayReport { log.observerRan(container: containerName(), property: property) }
        }
        for hook in hooks {
            hook.run(sender, property, value)
            if log.mayReport { log.hookRan(container: containerName(), property: property, source: hook.source) }
        }
    }

    /// The hook step used by the spells: the hooks of the lookup that made
    /// the value (one generation's, whatever committed since), and no lock.
    @usableFromInline
    func runHooks(after resolution: CachedResolution, sender: AnyObject, property: String, value: Any) {
        if resolution.hooksMayApply {
            runHooks(
                resolution.hooks(for: property), sender: sender, containerName: SpellNames.containerName(of: sender),
                property: property, value: value)
        } else if resolution.containerObserves, let observer = sender as? any PropertyInjectionObserving {
            observer.propertyInjected(name: property, value: value)
            if log.mayReport { log.observerRan(container: SpellNames.containerName(of: sender), property: property) }
        }
    }
}
