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
    /// Matches the staged registrations `new` says are its against the
    /// registered ones `old` says are its by what they are for (kind, type, container rule,
    /// property or name, scope): a staged one with no counterpart was added,
    /// an old one with none removed; a pair is unchanged when
    /// `sameOrigin(oldSource, newSource)` says so, else replaced. Between
    /// several candidates, one of the same source is preferred.
    package func changes(
        staged stage: RegistryStage, replacing old: (SpellHandle) -> Bool, madeBy new: (SpellHandle) -> Bool,
        sameOrigin: (String, String) -> Bool
    ) -> StagedChanges {
        // Copies of the lists (no copying of elements until they change).
        let (current, staged) = state.withLock { ($0.snapshot(), $0.stages[stage.id]?.snapshot()) }
        guard let staged else { return StagedChanges() }
        var changes = StagedChanges()
        // Registrations of different lists never do the same job: each list
        // is matched on its own, with its concrete record type.
        func match<Record: MatchableRegistration>(_ list: KeyPath<RegistryState.Snapshot, RegistrationList<Record>>) {
            Self.match(
                current[keyPath: list].filter { old($0.handle) },
                staged[keyPath: list].filter { new($0.handle) },
                into: &changes, sameOrigin: sameOrigin)
        }
        match(\.initializers)
        match(\.hooks)
        match(\.preferenceOverrides)
        match(\.templateProviders)
        match(\.customSpells)
        match(\.resolvers)
        match(\.preferenceKeyGenerators)
        return changes
    }

    /// Matches `after` against `before` (see `changes(staged:…)`).
    private static func match<Record: MatchableRegistration>(
        _ before: [Record], _ after: [Record], into changes: inout StagedChanges, sameOrigin: (String, String) -> Bool
    ) {
        var matched = [Bool](repeating: false, count: before.count)
        func pair(_ old: Int, _ registration: Record) {
            matched[old] = true
            if sameOrigin(before[old].source, registration.source) {
                changes.unchangedCount += 1
                if registration.isSingleton { changes.unchangedSingletons.append((before[old].handle, registration.handle)) }
            } else {
                changes.replaced.append(registration.entry)
            }
        }
        // Scripts that load again mostly register the same things in the
        // same order: pair those off in step, with no hashing.
        var common = 0
        while common < before.count, common < after.count, before[common].source == after[common].source,
              before[common].doesSameJob(as: after[common]) {
            pair(common, after[common])
            common += 1
        }
        guard common < after.count || common < before.count else { return }
        // The rest: the unmatched old registrations of each identity, as a
        // chain of indices.
        var first: [RegistrationIdentity: Int] = [:]
        var next = [Int](repeating: -1, count: before.count)
        for index in before.indices.reversed() where index >= common {
            if let following = first.updateValue(index, forKey: before[index].identity) { next[index] = following }
        }
        for registration in after[common...] {
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
            if found >= 0 {
                pair(found, registration)
            } else {
                changes.added.append(registration.entry)
            }
        }
        for index in before.indices where !matched[index] { changes.removed.append(before[index].entry) }
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
    /// Whether it makes a singleton (whose value may be kept).
    var isSingleton: Bool { get }
    /// Whether `other` has the same identity (without making either).
    func doesSameJob(as other: Self) -> Bool
}

extension MatchableRegistration {
    var isSingleton: Bool { false }
    func doesSameJob(as other: Self) -> Bool { identity == other.identity }
}

extension InitializerRecord: MatchableRegistration {
    var identity: RegistrationIdentity {
        RegistrationIdentity(kind: scope == .singleton ? .singleton : .initializer, type: type, rule: container.rule, name: nil)
    }

    /// A custom scope's value is kept as a singleton's is.
    var isSingleton: Bool { scope.keepsOneValue }

    func doesSameJob(as other: InitializerRecord) -> Bool {
        scope == other.scope && type == other.type && container.rule == other.container.rule
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
