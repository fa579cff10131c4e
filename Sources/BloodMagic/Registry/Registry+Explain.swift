/// Why a registry would serve a type in a container the way it does: every
/// registration that could serve it, how specific each is, which wins and
/// why, and what else runs (`bmlua explain`, ``Registry/explain(_:in:property:)``).
public struct ResolutionExplanation: Sendable, CustomStringConvertible {
    /// One registration for the type, whether it applies to the container or not.
    public struct Candidate: Sendable {
        /// The registration.
        public let entry: SpellEntry
        /// How specific it is for the container (higher wins: an exact
        /// container beats a superclass, which beats any container); nil
        /// when it does not apply to the container.
        public let specificity: Int?
        /// Its container rule in words: "exact container", "superclass
        /// Base of the container", "any container", or why it does not apply.
        public let reason: String

        /// Whether it applies to the container.
        public var applies: Bool { specificity != nil }
    }

    /// The type asked about.
    public let type: SpellTypeKey
    /// The container asked about, or nil for none.
    public let container: SpellTypeKey?
    /// The property asked about, if any (hooks are then only its own).
    public let property: String?
    /// Every initializer registered for the type, in registration order.
    public let candidates: [Candidate]
    /// The one that serves the type, or nil.
    public let winner: SpellEntry?
    /// Why the winner wins, or what happens when nothing applies.
    public let reason: String
    /// Why nothing can serve although registrations name the type (a name
    /// that refers to several Swift types), if so.
    public let failure: SpellError?
    /// The registry hooks that run after an injection into the container
    /// (of `property` when given), in the order they run.
    public let hooks: [SpellEntry]
    /// The resolvers asked, newest first, when no initializer applies.
    public let resolvers: [SpellEntry]
    /// Whether any registration, resolver-free, names the type (or the
    /// registry knows a Swift type by that name).
    public let typeIsKnown: Bool
    /// Whether any registration names the container (or the registry
    /// knows a Swift type by that name); true without a container.
    public let containerIsKnown: Bool
    /// The registration name asked about (see ``SpellName``), nil for none.
    public var name: String? = nil
    /// The decorators that run on the winner's values, in the order they
    /// run (see ``Registry/decorate(_:fileID:line:_:)``).
    public var decorators: [SpellEntry] = []

    /// The explanation as `bmlua explain` prints it.
    public var description: String {
        var lines: [String] = []
        let named = type.name + (name.map { " named \"\($0)\"" } ?? "")
        let target = container.map { "\(named) in \($0.name)" } ?? "\(named) (no container)"
        lines.append(property.map { "\(target), property \($0)" } ?? target)
        if candidates.isEmpty {
            lines.append("registrations: none for \(type.name)")
        } else {
            lines.append("registrations (most specific first):")
            let ordered = candidates.enumerated().sorted { a, b in
                let (sa, sb) = (a.element.specificity ?? Int.min, b.element.specificity ?? Int.min)
                return sa != sb ? sa > sb : a.offset > b.offset
            }.map(\.element)
            for candidate in ordered {
                let mark = candidate.entry.handle == winner?.handle ? "*" : " "
                let score = candidate.specificity.map { "specificity \($0)" } ?? "does not apply"
                let entryName = (candidate.entry.name.map { " named \"\($0)\"" } ?? "")
                    + (candidate.entry.arguments.map { " taking (\($0.joined(separator: ", ")))" } ?? "")
                    + (candidate.entry.forwardedRegistration.map { " (forwarding to \($0))" } ?? "")
                lines.append("  \(mark) \(candidate.entry.kind)\(candidate.entry.scopeNote)\(candidate.entry.asyncNote) \(candidate.entry.type?.name ?? type.name)\(entryName) in \(candidate.entry.container) at \(candidate.entry.source): \(score), \(candidate.reason)")
            }
        }
        if let winner {
            lines.append("wins: the \(winner.kind)\(winner.scopeNote)\(winner.asyncNote) registered at \(winner.source): \(reason)")
        } else if let failure {
            lines.append("fails: \(failure)")
        } else {
            lines.append("no initializer: \(reason)")
        }
        if !decorators.isEmpty {
            lines.append("decorators, in the order they run:")
            for decorator in decorators {
                lines.append("  decorator for \(decorator.type?.name ?? type.name) at \(decorator.source)")
            }
        }
        if !resolvers.isEmpty && winner == nil {
            lines.append("resolvers asked (newest first): " + resolvers.map(\.source).joined(separator: ", "))
        }
        if hooks.isEmpty {
            lines.append("hooks: none")
        } else {
            let into = container?.name ?? "a container"
            lines.append(property.map { "hooks that run after injecting \(into).\($0), in order:" }
                ?? "hooks that run after injecting into \(into) (each after the property it names), in order:")
            for hook in hooks {
                lines.append("  hook for \(hook.container).\(hook.property ?? "*") at \(hook.source)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension Registry {
    /// Explains how `type` would be resolved in `container`: the
    /// registrations that could serve it with their specificity and
    /// source, which wins and why, and the hooks that would run after it
    /// is injected (those of `property` when given). Nothing runs and the
    /// registry is not changed.
    ///
    /// ```swift
    /// print(registry.explain(SpellTypeKey(Loader.self), in: ContainerDescriptor(object: nil, key: SpellTypeKey(UsersViewController.self))))
    /// ```
    ///
    /// With a `name`, only the registrations under that name apply (see
    /// ``SpellName``); without, only the unnamed ones. The others are
    /// listed as not applying, with their names.
    public func explain(
        _ type: SpellTypeKey, in container: ContainerDescriptor?, property: String? = nil, name: String? = nil
    ) -> ResolutionExplanation {
        let described = container ?? ContainerDescriptor(object: nil, key: SpellTypeKey(name: "(none)"), ancestry: [])
        return state.withLock { state in
            var catalog = state.catalog
            _ = catalog.note(type)
            if container != nil { _ = catalog.note(described.key) }
            var candidates: [ResolutionExplanation.Candidate] = []
            var best: (record: InitializerRecord, score: Int, match: TypeMatch)?
            var tied: [InitializerRecord] = []
            for record in state.initializers {
                let match = catalog.match(record.type, type)
                guard match.fits else { continue }
                guard record.name == name else {
                    let reason = record.name.map { "registered under the name \"\($0)\"" } ?? "unnamed (serves only unnamed properties)"
                    candidates.append(ResolutionExplanation.Candidate(entry: record.entry, specificity: nil, reason: reason))
                    continue
                }
                let score = record.container.specificity(for: described, catalog: catalog)
                candidates.append(ResolutionExplanation.Candidate(
                    entry: record.entry, specificity: score,
                    reason: Self.explainRule(record.container, for: described, score: score)))
                guard let score else { continue }
                if let current = best, score < current.score { continue }
                if let current = best, score == current.score { tied.append(current.record) } else { tied = [] }
                best = (record, score, match)
            }
            var failure: SpellError?
            if let best, case .ambiguous(let ambiguity) = best.match {
                failure = .ambiguousTypeName(
                    name: ambiguity.name, candidates: ambiguity.candidates,
                    source: best.record.type.isSwiftType ? nil : best.record.source)
            }
            let winner = failure == nil ? best?.record.entry : nil
            let reason: String
            if let best, failure == nil {
                let applying = candidates.filter(\.applies)
                if applying.count == 1 {
                    reason = "the only registration that applies"
                } else if !tied.isEmpty {
                    reason = "as specific as the one\(tied.count == 1 ? "" : "s") registered at \(tied.map(\.source).joined(separator: ", ")); the latest registered wins"
                } else {
                    let next = applying.compactMap(\.specificity).filter { $0 < best.score }.max()
                    let beaten = applying.first { $0.specificity == next }
                    reason = "the most specific (\(Self.explainRule(best.record.container, for: described, score: best.score)))"
                        + (beaten.map { ", above \($0.reason) at \($0.entry.source)" } ?? "")
                }
            } else if failure != nil {
                reason = "the type name is ambiguous"
            } else if let name {
                let known = state.initializers.compactMap { record in
                    catalog.match(record.type, type).fits ? record.name : nil
                }
                var listed: [String] = []
                var seen: Set<String> = []
                for known in known where seen.insert(known).inserted { listed.append(known) }
                reason = "nothing is registered under the name \"\(name)\" ("
                    + (listed.isEmpty ? "no names are registered for \(type.name)" : "names registered: " + listed.map { "\"\($0)\"" }.joined(separator: ", "))
                    + "); a named property is never served by a resolver: an Optional one is nil, any other is an error"
            } else if !state.resolvers.isEmpty {
                reason = "the resolvers are asked; if each skips, a lazy property is made by default construction, an Optional injectable is nil, and any other injectable is an error"
            } else {
                reason = "a lazy property is made by default construction, an Optional injectable is nil, and any other injectable is an error"
            }
            let hooks = state.hooks.filter { hook in
                (property == nil || hook.property == nil || hook.property == property)
                    && hook.container.specificity(for: described, catalog: catalog) != nil
            }.map(\.entry)
            let names = type.shortNames
            let typeIsKnown = !candidates.isEmpty
                || state.initializers.contains { $0.type.shortNames == names }
                || state.templateProviders.contains { $0.type.map { catalog.match($0, type).fits } ?? false }
                || (type.protocols == nil ? catalog.knowsType(named: type.name) : catalog.knowsProtocols(type.protocols ?? []))
            let containerIsKnown = container == nil || Self.registrations(in: state).contains { match in
                match.key.map { catalog.match($0, described.key).fits } ?? false
            } || catalog.knowsType(named: described.key.name)
            return ResolutionExplanation(
                type: type, container: container?.key, property: property, candidates: candidates, winner: winner,
                reason: reason, failure: failure, hooks: hooks, resolvers: state.resolvers.reversed().map(\.entry),
                typeIsKnown: typeIsKnown, containerIsKnown: containerIsKnown, name: name,
                decorators: winner == nil ? [] : state.decorators(for: type).map(\.entry))
        }
    }

    /// The container rules of every registration that has one.
    private static func registrations(in state: RegistryState) -> [ContainerMatch] {
        state.initializers.map(\.container) + state.hooks.map(\.container) + state.preferenceOverrides.map(\.container)
    }

    /// A registration's container rule for `container`, in words.
    private static func explainRule(_ match: ContainerMatch, for container: ContainerDescriptor, score: Int?) -> String {
        switch match.rule {
        case .any:
            return "any container"
        case .exactly(let key):
            return score == nil ? "only for container \(key.name)" : "exact container"
        case .kindOf(let key):
            guard let score else { return "only for \(key.name) and its subclasses" }
            return score == 2_000_000 ? "exact container (or its subclasses)" : "\(key.name), a superclass of the container"
        }
    }
}
