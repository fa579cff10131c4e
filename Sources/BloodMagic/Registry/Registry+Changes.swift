// What a stage changes: the registrations it adds, removes and replaces,
// worked out on the registry's records (a script host's reload report).
// Entries are made only for what changed: a reload of thousands of
// registrations of which a few changed lists those few.

/// What a stage changes against the registrations it replaces (see
/// `Registry.changes(staged:replacing:madeBy:sameOrigin:)`).
package struct StagedChanges: Sendable {
    /// Staged registrations with no old counterpart.
    package var added: [SpellEntry] = []
    /// Old registrations with no staged counterpart.
    package var removed: [SpellEntry] = []
    /// Staged registrations whose counterpart came from elsewhere.
    package var replaced: [SpellEntry] = []
    /// How many staged registrations have a counterpart of the same origin.
    package var unchangedCount = 0
    /// The singletons among those: old handle, staged handle.
    package var unchangedSingletons: [(old: SpellHandle, new: SpellHandle)] = []
}

extension Registry {
    /// Matches the staged registrations among `new` against the registered
    /// ones among `old` by what they are for (kind, type, container rule,
    /// property or name, scope): a staged one with no counterpart was added,
    /// an old one with none removed; a pair is unchanged when
    /// `sameOrigin(oldSource, newSource)` says so, else replaced. Between
    /// several candidates, one of the same source is preferred.
    package func changes(
        staged stage: RegistryStage, replacing old: Set<SpellHandle>, madeBy new: Set<SpellHandle>,
        sameOrigin: (String, String) -> Bool
    ) -> StagedChanges {
        // Copies of the lists (no copying of elements until they change).
        let (current, staged) = state.withLock { ($0.snapshot(), $0.stages[stage.id]?.snapshot()) }
        guard let staged else { return StagedChanges() }
        let before = current.registrations(among: old)
        let after = staged.registrations(among: new)

        // The old registrations of each identity, as a chain of indices.
        var first: [RegistrationIdentity: Int] = [:]
        first.reserveCapacity(before.count)
        var next = [Int](repeating: -1, count: before.count)
        for index in before.indices.reversed() {
            if let following = first.updateValue(index, forKey: before[index].identity) { next[index] = following }
        }
        var matched = [Bool](repeating: false, count: before.count)
        var changes = StagedChanges()
        for registration in after {
            var candidate = first[registration.identity] ?? -1
            var fallback = -1
            var found = -1
            while candidate >= 0 {
                if !matched[candidate] {
                    if before[candidate].source == registration.source {
                        found = candidate
                        break
                    }
                    if fallback < 0 { fallback = candidate }
                }
                candidate = next[candidate]
            }
            if found < 0 { found = fallback }
            guard found >= 0 else {
                changes.added.append(registration.entry)
                continue
            }
            matched[found] = true
            if sameOrigin(before[found].source, registration.source) {
                changes.unchangedCount += 1
                if registration.identity.kind == .singleton {
                    changes.unchangedSingletons.append((before[found].handle, registration.handle))
                }
            } else {
                changes.replaced.append(registration.entry)
            }
        }
        changes.removed = before.indices.filter { !matched[$0] }.map { before[$0].entry }
        return changes
    }
}

/// What a registration is for: two with the same identity do the same
/// job, whoever made them and wherever.
struct RegistrationIdentity: Hashable {
    let kind: SpellEntryKind
    let type: SpellTypeKey?
    let rule: ContainerMatch.Rule
    /// The property of a hook or preference override, a custom spell's name.
    let name: String?
}

/// A registration record, for matching.
protocol MatchableRegistration: Sendable {
    var handle: SpellHandle { get }
    var source: String { get }
    var entry: SpellEntry { get }
    var identity: RegistrationIdentity { get }
}

extension InitializerRecord: MatchableRegistration {
    var identity: RegistrationIdentity {
        RegistrationIdentity(kind: scope == .singleton ? .singleton : .initializer, type: type, rule: container.rule, name: nil)
    }
}

extension HookRecord: MatchableRegistration {
    var identity: RegistrationIdentity {
        RegistrationIdentity(kind: .hook, type: nil, rule: container.rule, name: property)
    }
}

extension PreferenceOverrideRecord: MatchableRegistration {
    var identity: RegistrationIdentity {
        RegistrationIdentity(kind: .preferenceOverride, type: nil, rule: container.rule, name: property)
    }
}

extension TemplateProviderRecord: MatchableRegistration {
    var identity: RegistrationIdentity {
        RegistrationIdentity(kind: .partialTemplate, type: type, rule: .any, name: nil)
    }
}

extension CustomSpellRecord: MatchableRegistration {
    var identity: RegistrationIdentity {
        RegistrationIdentity(kind: .customSpell, type: nil, rule: .any, name: name)
    }
}

extension ResolverRecord: MatchableRegistration {
    var identity: RegistrationIdentity {
        RegistrationIdentity(kind: .resolver, type: nil, rule: .any, name: nil)
    }
}

extension PreferenceKeyGeneratorRecord: MatchableRegistration {
    var identity: RegistrationIdentity {
        RegistrationIdentity(kind: .preferenceKeys, type: nil, rule: .any, name: nil)
    }
}

extension RegistryState.Snapshot {
    /// The registrations among `handles`, list by list, each list in
    /// registration order.
    func registrations(among handles: Set<SpellHandle>) -> [any MatchableRegistration] {
        var found: [any MatchableRegistration] = []
        func collect(_ list: [some MatchableRegistration]) {
            for record in list where handles.contains(record.handle) { found.append(record) }
        }
        collect(initializers)
        collect(hooks)
        collect(preferenceOverrides)
        collect(templateProviders)
        collect(customSpells)
        collect(resolvers)
        collect(preferenceKeyGenerators)
        return found
    }
}
