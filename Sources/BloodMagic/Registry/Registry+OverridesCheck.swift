// The check that stops two tasks from overriding one registry at once with
// `withOverrides` (which changes the registry itself, so each would see the
// other's replacements and restore the other's snapshot).

extension Registry {
    /// The serials of the registries whose `withOverrides` the calling task
    /// (or thread) is inside: a use nested in one of them is the same
    /// task's, not an overlap.
    @TaskLocal static var overridesEntered: [UInt64] = []

    /// Notes a `withOverrides` starting on this registry and returns the
    /// calling task's list with it; traps when another task's use is running
    /// (the caller subtracts from `overridesRunning` when it ends).
    func enterOverrides() -> [UInt64] {
        let entered = Registry.overridesEntered
        let running = overridesRunning.add(1, ordering: .acquiringAndReleasing).oldValue
        if running > 0 && !entered.contains(serial) {
            overridesRunning.subtract(1, ordering: .releasing)
            preconditionFailure(Registry.overlappingOverridesMessage)
        }
        return entered + [serial]
    }

    /// What the trap says.
    package static let overlappingOverridesMessage = """
        withOverrides: another task or thread is running withOverrides on this registry; the overrides change \
        the registry itself, so the two would see and restore each other's replacements. Tests that run in \
        parallel should each use a registry layered over it: registry.withLayeredOverrides { ... } run: { ... }, \
        or the trait .registry { ... } of BloodMagicTesting
        """
}
