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

extension Registry {
    /// Runs `list`'s hooks (and the sender's `propertyInjected`, if it
    /// observes), as the spells run a lookup's hooks after an injection.
    package func runHooks(_ list: SpellHookList?, sender: AnyObject, containerName: String, property: String, value: Any) {
        runHooks(list?.hooks ?? [], sender: sender, containerName: containerName, property: property, value: value)
    }
}
