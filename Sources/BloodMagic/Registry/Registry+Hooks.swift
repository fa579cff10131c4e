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
        state.withLock { state in
            state.add(into: \.hooks, invalidatingCaches: true) { handle in
                HookRecord(handle: handle, container: container, property: property, source: source, run: hook)
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
        let hooks = state.withLock { Array($0.hooks(matching: container, property: property)) }
        if let observer = sender as? any PropertyInjectionObserving {
            observer.propertyInjected(name: property, value: value)
            if log.mayReport { log.observerRan(container: container.key.name, property: property) }
        }
        for hook in hooks {
            hook.run(sender, property, value)
            if log.mayReport { log.hookRan(container: container.key.name, property: property, source: hook.source) }
        }
    }

    /// The hook step used by the spells: skips the lock when the cached
    /// lookup says no registry hook can apply to this container type.
    @usableFromInline
    func runHooks(after resolution: CachedResolution, sender: AnyObject, property: String, value: Any) {
        if resolution.hooksMayApply {
            runHooks(sender: sender, container: ContainerDescriptor(sender), property: property, value: value)
        } else if resolution.containerObserves, let observer = sender as? any PropertyInjectionObserving {
            observer.propertyInjected(name: property, value: value)
            if log.mayReport { log.observerRan(container: SpellNames.containerName(of: sender), property: property) }
        }
    }
}
