// The records of the registrations other than initializers (InitializerRecord.swift),
// resolvers (Registry+Resolvers.swift) and preference key generators
// (Registry+PreferenceKeys.swift), as `RegistryState` keeps them.

/// A registered hook.
struct HookRecord: Sendable {
    let handle: SpellHandle
    let container: ContainerMatch
    let property: String?
    let source: String
    let run: @Sendable (AnyObject, String, Any) -> Void
    /// What the hook's code needs alive while it is registered, when `run`
    /// holds it weakly (a script's hook: its Lua state), so that a copy of
    /// the record without it (``detached``) keeps nothing alive.
    var keepAlive: (any AnyObject & Sendable)?
    /// What a script bridge may run itself instead of `run` (a script's
    /// hook: its function, so that the script calls it and it can wait);
    /// kept by ``detached`` copies, so it must hold nothing strongly that
    /// `keepAlive` holds.
    var script: (any Sendable)? = nil

    var entry: SpellEntry {
        SpellEntry(handle: handle, kind: .hook, type: nil, container: container, property: property, scope: nil, source: source)
    }

    /// The record without what it keeps alive: for a copy kept where it
    /// could keep its own keeper alive (a script's cache, in that script's
    /// state). Its hook does nothing once that is gone.
    var detached: HookRecord {
        var copy = self
        copy.keepAlive = nil
        return copy
    }
}

/// A registered preference override.
struct PreferenceOverrideRecord: Sendable {
    let handle: SpellHandle
    let container: ContainerMatch
    let property: String
    let override: PreferenceOverride
    let source: String

    var entry: SpellEntry {
        SpellEntry(handle: handle, kind: .preferenceOverride, type: nil, container: container, property: property, scope: nil, source: source)
    }
}

/// A registered template provider.
struct TemplateProviderRecord: Sendable {
    let handle: SpellHandle
    let type: SpellTypeKey?
    let provider: any PartialTemplateProvider
    let source: String

    var entry: SpellEntry {
        SpellEntry(handle: handle, kind: .partialTemplate, type: type, container: .any, property: nil, scope: nil, source: source)
    }
}

/// A registered named custom spell.
struct CustomSpellRecord: Sendable {
    let handle: SpellHandle
    let name: String
    let hooks: NamedSpellHooks
    let source: String

    var entry: SpellEntry {
        SpellEntry(handle: handle, kind: .customSpell, type: nil, container: .any, property: name, scope: nil, source: source)
    }
}
