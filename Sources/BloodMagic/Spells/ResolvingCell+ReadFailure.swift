// A getter's read that failed, under the registry's read-failure policy
// (ReadFailurePolicy): a trap by default, else a logged error and the
// property's fallback. Reached only after a read failed: nothing here is on
// a read's path.

extension ResolvingCell {
    /// What the getter does with `error`, a failed read: traps (the
    /// default), or logs it and reads the property's fallback (nil for an
    /// Optional, stored nowhere; the initial value or `init()`, produced as
    /// the read's value), trapping only when there is none.
    @usableFromInline
    @inline(never)
    func recover(from error: any Error, object: AnyObject, keyPath: AnyKeyPath?) -> ResolvedValue<Value> {
        let registry = resolvingRegistry
        let property = propertyName(keyPath, in: object)
        let container = SpellNames.containerName(of: object)
        let wrapped = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
        let type = SpellTypeKey(wrapped).name
        registry.reportReadFailure(error, container: container, property: property, type: type)
        guard registry.readFailurePolicy == .logAndUseFallback else { trap(error) }
        if Value.self is any OptionalProtocol.Type {
            registry.logReadFailure(error, container: container, property: property, type: type, fallback: "nil")
            return .absent
        }
        guard let made = fallbackValue() else {
            registry.logReadFailure(error, container: container, property: property, type: type, fallback: "nothing (no fallback: it traps)")
            trap(error)
        }
        registry.logReadFailure(error, container: container, property: property, type: type, fallback: "its default value")
        return claim(toStore: made, object: object, keyPath: keyPath)
    }

    /// What a `@Lazy` makes with nothing registered: its initial value, else
    /// `init()` of a `DefaultConstructible` type; nil for other spells.
    func fallbackValue() -> Value? {
        guard case .lazy = mode else { return nil }
        if let fallback, let made = fallback() as? Value { return made }
        if let constructible = Value.self as? any DefaultConstructible.Type, let made = constructible.init() as Any as? Value {
            return made
        }
        return nil
    }

    /// `made` as the value to store and publish, once this thread claims the
    /// cell (the failed production released it); or what another thread
    /// published meanwhile.
    func claim(toStore made: Value, object: AnyObject, keyPath: AnyKeyPath?) -> ResolvedValue<Value> {
        let me = UInt(bitPattern: ResolutionStack.currentPointer)
        while true {
            let (claimed, found) = state.compareExchange(
                expected: Self.unresolved, desired: me | Self.producing, ordering: .acquiringAndReleasing)
            if claimed { return .produced(made) }
            if found == Self.published { return .readStorage }
            do {
                if try waitForProduction(object: object, keyPath: keyPath, me: me) { return .readStorage }
            } catch {
                trap(error)
            }
        }
    }
}

extension StaticSpellCell {
    /// ``ResolvingCell/recover(from:object:keyPath:)`` for a static property:
    /// the fallback is returned, not stored (the next read tries again).
    func recover(from error: any Error) -> Value {
        let registry = registryInUse
        let wrapped = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
        let type = SpellTypeKey(wrapped).name
        let container = self.container.spellContainerName
        registry.reportReadFailure(error, container: container, property: propertyName, type: type)
        guard registry.readFailurePolicy == .logAndUseFallback else { fatalError("\(error)") }
        if let none = (Value.self as? any OptionalProtocol.Type)?.nilValue as? Value {
            registry.logReadFailure(error, container: container, property: propertyName, type: type, fallback: "nil")
            return none
        }
        if spell == .lazy {
            if let fallback {
                registry.logReadFailure(error, container: container, property: propertyName, type: type, fallback: "its default value")
                return fallback()
            }
            if let constructible = wrapped as? any DefaultConstructible.Type, let made = constructible.init() as Any as? Value {
                registry.logReadFailure(error, container: container, property: propertyName, type: type, fallback: "its default value")
                return made
            }
        }
        registry.logReadFailure(error, container: container, property: propertyName, type: type, fallback: "nothing (no fallback: it traps)")
        fatalError("\(error)")
    }
}
