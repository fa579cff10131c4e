/// What a named resolution would use, found without running anything.
///
/// For bridges that keep a cache of their own (the Lua prelude keeps one per
/// class and property): the answer holds for as long as the registry's
/// generation equals `generation`.
package struct InitializerPeek {
    /// The registry's generation the lookup was made in: the answer holds
    /// while the registry's generation is the same.
    package let generation: UInt64
    /// The winning initializer, or nil when nothing matches.
    package let handle: SpellHandle?
    /// The winner's scope.
    package let scope: SpellScope
    /// For a singleton, its value if it has been made already.
    package let existingSingleton: Any?
    /// Whether any registry hook could run after injecting `property` into
    /// this container (with no property given: after injecting any property).
    package let hooksMayApply: Bool
    /// Where the winner was registered ("file:line"), or nil.
    package let source: String?
    /// Whether resolving would fail although registrations name the type
    /// (an ambiguous type name): resolve to get the error.
    package let failed: Bool
    /// Whether a resolver is registered (it may serve what nothing else does).
    package let resolversMayApply: Bool
    /// The lookup all of the above comes from (one generation's), with its hooks.
    package let lookup: SpellLookup
    /// Whether decorators apply to the winner's values (Registry+Decorators):
    /// then only Swift's resolution runs them, so a bridge must not call the
    /// initializer itself.
    package var decorated = false
    /// Whether the winner takes arguments (Registry+Arguments): a bridge
    /// must not call it itself, Swift's resolution checks them.
    package var takesArguments = false
}

extension Registry {
    /// The registry's generation: it moves on every change that can alter a
    /// lookup (registrations, removals, overrides, resets), so an answer
    /// tagged with it is valid while it stays the same. Lock-free.
    package var currentGeneration: UInt64 { generation.current }

    /// Which initializer `resolveIfRegistered(type:container:property:)`
    /// would run for `type` in `container`, and whether hooks could follow,
    /// without running it (the same lookup and cache as resolution).
    package func peekInitializer(type: SpellTypeKey, container: ContainerDescriptor, property: String?) -> InitializerPeek {
        // One lookup, one generation: the initializer, hooks and resolvers
        // it names were all in force together.
        let resolution = namedResolution(type: type, container: container)
        let record = resolution.record
        let lookup = SpellLookup(resolution)
        // The singleton's own lock is taken after the registry's is released:
        // a singleton being made holds it while its initializer resolves.
        return InitializerPeek(
            generation: resolution.generation, handle: record?.handle, scope: record?.scope ?? .instance,
            existingSingleton: record?.slot?.existing, hooksMayApply: lookup.hasHooks(for: property),
            source: record?.source, failed: resolution.failure != nil,
            resolversMayApply: !resolution.resolvers.isEmpty, lookup: lookup, decorated: record?.undecorated != nil,
            takesArguments: record?.arguments != nil)
    }

    /// Whether a resolution is in progress on the calling thread (its cycle
    /// tracker holds a step). A bridge that resolves without the tracker
    /// must not do so then, or a cycle found later would miss its steps.
    package static var isResolvingOnThisThread: Bool {
        Unmanaged<ResolutionStack>.fromOpaque(ResolutionStack.currentPointer)._withUnsafeGuaranteedRef {
            $0.count > 0
        }
    }
}
