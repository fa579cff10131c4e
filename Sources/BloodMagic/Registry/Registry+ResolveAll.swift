// Many-of: every registration of a type, resolved in registration order,
// for plug-in lists (Cleanse's multibindings; Swinject and Factory leave
// this to the app).

extension Registry {
    /// Resolves every registration of `type` that applies to `sender`'s
    /// container (all of them without a sender: then only those for any
    /// container apply), named and unnamed, **in registration order**, and
    /// returns their values. Singletons are honoured; nothing is stored and
    /// no hook runs, as for ``resolve(_:for:property:)``.
    ///
    /// ```swift
    /// registry.register(any Plugin.self, named: "search") { _ in SearchPlugin() }
    /// registry.register(any Plugin.self, named: "export") { _ in ExportPlugin() }
    /// let plugins = try registry.resolveAll((any Plugin).self)   // [search, export]
    /// ```
    ///
    /// The order is the order the registrations were made. A script host's
    /// reload puts the reloaded scripts' registrations after the ones that
    /// stay (the app's Swift registrations), in the order the scripts make
    /// them: files in byte order of their names, each top to bottom. Two
    /// equally specific registrations under one name are both listed (a
    /// single resolution would use the later and records a diagnostic):
    /// give plug-ins names of their own.
    ///
    /// The registrations are read under one lock, so every value comes
    /// from one generation of the registry, even if a reload commits while
    /// the initializers run. Empty when nothing is registered. Throws the
    /// first initializer's error, or a value's type mismatch naming where it
    /// was registered. O(registrations) to find them.
    @inlinable
    public func resolveAll<Value>(
        _ type: Value.Type = Value.self, for sender: AnyObject? = nil, property: String = "(resolveAll)"
    ) throws -> [Value] {
        let holder = sender ?? Registry.noSender
        let records = allRecords(valueType: Value.self, holder: holder, hasSender: sender != nil)
        var values: [Value] = []
        values.reserveCapacity(records.count)
        let stack = ResolutionStack.currentPointer
        let valueType = ObjectIdentifier(Value.self)
        // One frame for the whole list: every registration is made for the
        // same (sender, property), which is what the cycle tracker and the
        // errors' resolution chain name. Each value is still its own
        // top-level resolution (its graph-scoped values are its own).
        try Registry.trackTypedResolution(object: holder, property: property, on: stack) {
            for record in records {
                // A Swift registration of exactly this type: called directly, no cast.
                if let typed = record.typed, typed.valueType == valueType {
                    values.append(try ResolutionStack.whileResolving(self, on: stack) { () throws -> Value in
                        if record.slot != nil { return try record.produceTypedSingleton(Value.self, for: holder) }
                        return try unsafeDowncast(typed, to: TypedInitializer<Value>.self).call(holder)
                    })
                    continue
                }
                let made = try ResolutionStack.whileResolving(self, on: stack) { try record.produce(for: holder) }
                values.append(try Registry.cast(made, to: Value.self, property: property, sender: holder, source: record.source))
            }
        }
        return values
    }

    /// The records ``resolveAll(_:for:property:)`` runs for a `valueType`
    /// in `holder`'s container type, cached per (type, container type) and
    /// generation, as single lookups are.
    @usableFromInline
    func allRecords(valueType: Any.Type, holder: AnyObject, hasSender: Bool) -> [InitializerRecord] {
        let key = FastResolutionKey(valueType: valueType, containerType: Swift.type(of: holder))
        if let hit = withResolvingState({ $0.allCache[key] }) { return hit }
        let container = hasSender
            ? ContainerDescriptor(holder) : ContainerDescriptor(object: nil, key: SpellTypeKey(name: "(none)"), ancestry: [])
        let type = SpellTypeKey(valueType)
        return withResolvingState { state -> [InitializerRecord] in
            let found = state.allRecords(of: type, in: container)
            if state.allCache.count >= RegistryState.maxCachedResolutions { state.allCache.removeAll(keepingCapacity: true) }
            state.allCache[key] = found
            return found
        }
    }

    /// Every registration of `type` applying to `container`, and each
    /// value, in registration order, with where each was registered (the
    /// form a script bridge uses). `charge` is told the work of finding
    /// them (a unit per registration looked at) and may throw to stop.
    package func resolveAll(
        type: SpellTypeKey, container: ContainerDescriptor, property: String, charging charge: (Int) throws -> Void
    ) throws -> [(value: Any, source: String)] {
        try charge(withResolvingState { $0.initializers.count })
        let records = allRecords(of: type, in: container)
        var values: [(value: Any, source: String)] = []
        values.reserveCapacity(records.count)
        for record in records {
            values.append((try produce(record, asked: record.type, container: container, property: property), record.source))
        }
        return values
    }

    /// The entries ``resolveAll(_:for:property:)`` would run, in order (for tools).
    public func allRegistrations(of type: SpellTypeKey, in container: ContainerDescriptor?) -> [SpellEntry] {
        let container = container ?? ContainerDescriptor(object: nil, key: SpellTypeKey(name: "(none)"), ancestry: [])
        return allRecords(of: type, in: container).map(\.entry)
    }

    /// The initializers of `type` that apply to `container`, in
    /// registration order, read under one lock (one generation).
    /// O(registrations). A name that refers to several Swift types matches
    /// none of them here, as a single lookup would refuse it.
    func allRecords(of type: SpellTypeKey, in container: ContainerDescriptor) -> [InitializerRecord] {
        withResolvingState { state -> [InitializerRecord] in state.allRecords(of: type, in: container) }
    }
}

extension RegistryState {
    /// The initializers of `type` that apply to `container`, in
    /// registration order. O(registrations).
    mutating func allRecords(of type: SpellTypeKey, in container: ContainerDescriptor) -> [InitializerRecord] {
        if catalog.note(type) { invalidateCaches() }
        if catalog.note(container.key) { invalidateCaches() }
        let candidates = catalog.isEmpty ? initializersByType[type] ?? [] : initializers
        // Each as a lookup of `type` serves it: decorated when decorators apply.
        return candidates.filter { record in
            catalog.match(record.type, type).isUnambiguous
                && record.container.specificity(for: container, catalog: catalog) != nil
        }.compactMap { decorated($0, for: type) }
    }
}
