/// One generation's lookup of a (type, container) pair, for a bridge that
/// resolves in steps of its own (a script's cached initializer, then the
/// hooks): what the registry served it with, and the hooks of that same
/// generation, so that a reload committing between two steps changes
/// nothing for this resolution.
package struct SpellLookup: Sendable {
    let resolution: CachedResolution

    init(_ resolution: CachedResolution) {
        self.resolution = resolution
    }

    /// The registry generation the lookup was made in: an answer cached
    /// with it holds while the registry's generation is the same. Never
    /// equal to a registry's for a lookup made in a reload's preview.
    package var generation: UInt64 { resolution.generation }

    /// Whether a hook of this lookup runs after `property` is injected
    /// (nil: after any property).
    package func hasHooks(for property: String?) -> Bool {
        guard let property else { return resolution.hooksMayApply }
        return resolution.hooks.contains { $0.property == nil || $0.property == property }
    }

    /// The hooks of this lookup that run after `property` is injected, to
    /// keep and run later (``Registry/runHooks(_:sender:containerName:property:value:)``);
    /// nil when there are none. The list keeps alive nothing its hooks'
    /// registrations keep alive (see `Registry.addHook(…keepingAlive:…)`).
    package func hooks(for property: String) -> SpellHookList? {
        let hooks = resolution.hooks(for: property)
        return hooks.isEmpty ? nil : SpellHookList(hooks.map(\.detached))
    }
}

/// The hooks one lookup chose for one property (see ``SpellLookup/hooks(for:)``).
package final class SpellHookList: Sendable {
    let hooks: [HookRecord]

    init(_ hooks: [HookRecord]) {
        self.hooks = hooks
    }
}

extension SpellHookList {
    /// Each hook, in order: its `script` payload (see `addHook(…script:…)`),
    /// for a bridge to run itself, and a list of that one hook, for
    /// ``Registry/runHooks(_:sender:containerName:property:value:)``.
    package var steps: [(script: (any Sendable)?, hook: SpellHookList)] {
        hooks.map { ($0.script, SpellHookList([$0])) }
    }
}

extension Registry {
    /// The hooks in force now for `property` of `container` (detached, as
    /// ``SpellLookup/hooks(for:)`` hands them out); nil when there are none.
    package func hookList(matching container: ContainerDescriptor, property: String) -> SpellHookList? {
        let hooks = withResolvingState { Array($0.hooks(matching: container, property: property)) }
        return hooks.isEmpty ? nil : SpellHookList(hooks.map(\.detached))
    }

    /// Reports `list`'s hooks as run (the `hook` event), for the hooks a
    /// bridge runs itself (see ``SpellHookList/steps``).
    package func reportHooksRan(_ list: SpellHookList, containerName: String, property: String) {
        guard log.mayReport else { return }
        for hook in list.hooks { log.hookRan(container: containerName, property: property, source: hook.source) }
    }

    /// Runs `list`'s hooks (and the sender's `propertyInjected`, if it
    /// observes), as the spells run a lookup's hooks after an injection.
    package func runHooks(_ list: SpellHookList?, sender: AnyObject, containerName: String, property: String, value: Any) {
        runHooks(list?.hooks ?? [], sender: sender, containerName: containerName, property: property, value: value)
    }
}
