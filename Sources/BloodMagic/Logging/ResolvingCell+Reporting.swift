extension ResolvingCell {
    /// Reports what served this property when no registered initializer
    /// did (see `Registry.logger`): default construction, or nil with
    /// `absent`. (A registered initializer is reported with the hooks,
    /// which a reporting registry's lookups ask for.) Out of line: the
    /// getter's code only holds the `mayReport` check that guards the call.
    @usableFromInline
    @inline(never)
    func reportServed(object: AnyObject, keyPath: AnyKeyPath?, registry: Registry, resolution: CachedResolution?, absent: Bool = false) {
        guard registry.log.isEnabled else { return }
        let container = SpellNames.containerName(of: object)
        let property = propertyName(keyPath, in: object)
        let type = SpellTypeKey(Value.self).name
        if let record = resolution?.record {
            registry.log.served(container: container, property: property, type: type, by: record)
        } else {
            registry.log.served(container: container, property: property, type: type, by: absent ? .none : .defaultConstruction)
        }
    }
}
