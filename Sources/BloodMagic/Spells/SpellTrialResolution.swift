// Trial resolution: a spelled property resolved as its first read would
// resolve it, without storing the value or running hooks. A script host
// validates new wiring with it before committing a reload (in the
// registry's preview of the commit, see Registry+Preview).

/// A property wrapper whose property can be resolved as a trial (see
/// ``SpellReflection/trialResolve(_:)``).
package protocol SpellTrialResolving {
    /// Resolves the property of `object` as a first read would; throws what
    /// that read would trap with.
    func trialResolve(in object: AnyObject) throws
}

extension ResolvingCell {
    /// Resolves this property of `object` as its first read would — the
    /// lookup, then the initializer (a resolver, the template, the default),
    /// then the cast to the property's type — without storing the value or
    /// running hooks; throws what the read would trap with. Whatever the
    /// cell holds is left as it is.
    func trialResolve(in object: AnyObject) throws {
        let registry = resolvingRegistry
        let stack = ResolutionStack.currentPointer
        try withLookup(registry: registry, object: object, stack: stack) { resolution in
            try ResolutionStack.borrow(stack) { try $0.pushCell(object: object, cell: self, keyPath: nil) }
            defer { ResolutionStack.borrow(stack) { $0.pop() } }
            _ = try ResolutionStack.whileResolving(registry, on: stack) {
                try produce(object: object, keyPath: nil, registry: registry, resolution: resolution, stack: stack)
            }
        }
    }
}

extension Lazy: SpellTrialResolving {
    /// Resolves the property as a trial (see ``SpellReflection/trialResolve(_:)``).
    package func trialResolve(in object: AnyObject) throws { try cell.trialResolve(in: object) }
}

extension Injectable: SpellTrialResolving {
    /// Resolves the property as a trial (see ``SpellReflection/trialResolve(_:)``).
    package func trialResolve(in object: AnyObject) throws { try cell.trialResolve(in: object) }
}

extension Partial: SpellTrialResolving {
    /// Resolves the property as a trial (see ``SpellReflection/trialResolve(_:)``).
    package func trialResolve(in object: AnyObject) throws { try cell.trialResolve(in: object) }
}

extension SpellReflection {
    /// Resolves every `@Lazy`, `@Injectable` and `@Partial` property of
    /// `object` (superclasses' included) as its first read would, without
    /// storing a value or running a hook, and returns what each read would
    /// trap with, in declaration order (empty: every read would succeed).
    /// Initializers run: a value made is dropped, a singleton made is kept.
    package static func trialResolve(_ object: AnyObject) -> [(property: String, error: any Error)] {
        var failures: [(property: String, error: any Error)] = []
        var seen: Set<String> = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                guard let label = child.label, let wrapper = child.value as? any SpellTrialResolving & SpellDescribing
                else { continue }
                let name = wrapper.spelledProperty(named: label.first == "_" ? String(label.dropFirst()) : label).name
                guard seen.insert(name).inserted else { continue }
                do {
                    try wrapper.trialResolve(in: object)
                } catch {
                    failures.append((name, error))
                }
            }
            mirror = current.superclassMirror
        }
        return failures
    }
}
