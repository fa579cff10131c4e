import BloodMagic

extension ScriptHost {
    /// Explains how `type` would be resolved in the container named
    /// `container` (a Lua class, with its superclasses, or any other name),
    /// or with no container: see ``Registry/explain(_:in:property:)``.
    /// A Lua class counts as a known container.
    public func explain(_ type: SpellTypeKey, container: String?, property: String? = nil, name: String? = nil) -> ResolutionExplanation {
        let descriptor = container.map { module.container(named: $0, object: nil) }
        return registry.explain(type, in: descriptor, property: property, name: name)
    }

    /// Whether the scripts define a Lua class named `name`.
    public func definesClass(named name: String) -> Bool {
        module.classes[name] != nil
    }
}
