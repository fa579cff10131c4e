/// Resolvers asked in steps of a bridge's own (issue 30, "Lua that can
/// wait"): instead of asking the resolvers itself, the registry hands a
/// script bridge the resolvers of one lookup, newest first, so that the
/// bridge calls its script's resolvers from the script (where they may
/// suspend) and asks the registry for the others one at a time
/// (``Registry/askResolver(_:step:container:)``). The plan also carries the
/// hooks of the same lookup: a bridge that is suspended between two steps
/// and resumed after a reload committed still asks the resolvers, and runs
/// the hooks, of the generation it started with. Semantics are those of
/// ``Registry/resolveSpelled(type:container:property:spell:name:)``: the
/// first resolver that answers with a value wins, a skip asks the next.
package final class SpellResolverPlan: Sendable {
    /// One resolver of the plan: where it was registered, and what a bridge
    /// may run itself instead (`addResolver(…script:…)`).
    package struct Step: Sendable {
        /// Where the resolver was registered ("file:line").
        package let source: String
        /// Its script payload, for the bridge that registered it.
        package let script: (any Sendable)?
        /// The record the registry runs for ``Registry/askResolver(_:step:container:)``;
        /// nil for a step the bridge said it runs itself (so that a plan a
        /// script's state keeps holds nothing that keeps that state alive).
        let record: ResolverRecord?
    }

    /// The resolvers, newest first (the order they are asked in).
    package let steps: [Step]
    /// The hooks that follow an injection, from the same lookup.
    package let hooks: SpellHookList?
    /// The property's declared type and how it is spelled.
    package let type: SpellTypeKey
    package let spell: ResolvedSpellKind
    /// The property's name and its container's key.
    package let property: String
    package let container: SpellTypeKey

    init(
        steps: [Step], hooks: SpellHookList?, type: SpellTypeKey, spell: ResolvedSpellKind, property: String,
        container: SpellTypeKey
    ) {
        self.steps = steps
        self.hooks = hooks
        self.type = type
        self.spell = spell
        self.property = property
        self.container = container
    }
}

/// What ``Registry/planSpelled(type:container:property:spell:runsItself:)`` found.
package enum SpellPlannedResolution {
    /// A registered initializer served the property (as `resolveSpelled`).
    case served(value: Any, source: String, lookup: SpellLookup)
    /// No initializer is registered and resolvers are: ask them in steps.
    case ask(SpellResolverPlan)
    /// Neither an initializer nor a resolver.
    case none
}

extension Registry {
    /// ``resolveSpelled(type:container:property:spell:name:)`` for a bridge
    /// that asks the resolvers itself: the registered initializer's value,
    /// else the plan of the resolvers to ask (see ``SpellResolverPlan``).
    /// `runsItself` says which script payloads the bridge runs itself.
    /// O(resolvers), which the caller charges.
    package func planSpelled(
        type: SpellTypeKey, container: ContainerDescriptor, property: String, spell: ResolvedSpellKind,
        runsItself: (any Sendable) -> Bool
    ) throws -> SpellPlannedResolution {
        let resolution = namedResolution(type: type, container: container)
        if let (value, source) = try resolveNamed(type: type, container: container, property: property, in: resolution) {
            return .served(value: value, source: source, lookup: SpellLookup(resolution))
        }
        guard !resolution.resolvers.isEmpty else { return .none }
        let steps = resolution.resolvers.reversed().map { record -> SpellResolverPlan.Step in
            let own = record.script.map(runsItself) ?? false
            return SpellResolverPlan.Step(source: record.source, script: record.script, record: own ? nil : record)
        }
        return .ask(SpellResolverPlan(
            steps: steps, hooks: SpellLookup(resolution).hooks(for: property), type: type, spell: spell,
            property: property, container: container.key))
    }

    /// Asks the plan's resolver at `step` (0-based; one the bridge does not
    /// run itself) about the property, inside the cycle tracker as
    /// ``resolveSpelled(type:container:property:spell:name:)`` asks it: its
    /// value, or nil when it skips (or is one the bridge runs).
    package func askResolver(_ plan: SpellResolverPlan, step: Int, container: ContainerDescriptor) throws -> Any? {
        guard plan.steps.indices.contains(step), let record = plan.steps[step].record else { return nil }
        return try resolveFromResolvers(
            [record], type: plan.type, container: container, property: plan.property, spell: plan.spell)?.value
    }

    /// Reports that the plan's resolver at `step` served the property (the
    /// `served` event), when the bridge ran it itself (the registry reports
    /// those ``askResolver(_:step:container:)`` ran).
    package func reportResolverServed(_ plan: SpellResolverPlan, step: Int) {
        guard log.mayReport, plan.steps.indices.contains(step), plan.steps[step].record == nil else { return }
        log.served(container: plan.container.name, property: plan.property, type: plan.type.name,
                   by: .resolver(plan.steps[step].source))
    }
}
