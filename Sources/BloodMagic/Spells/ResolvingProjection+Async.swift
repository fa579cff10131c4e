extension ResolvingProjection {
    /// The value, produced if needed, waiting for an `async` registration's
    /// value to be made (``Registry/registerAsync(_:scope:fileID:line:initializer:)``)
    /// or hopping to the actor its initializer is isolated to
    /// (``Registry/registerOnMainActor(_:scope:fileID:line:initializer:)``):
    ///
    /// ```swift
    /// final class Screen {
    ///     @Injectable var database: Database
    /// }
    /// let database = try await screen.$database.asyncValue()
    /// ```
    ///
    /// A property whose registration is synchronous is read as ``value()``
    /// reads it. Made once: a singleton once for every property, an
    /// instance-scoped value once per property however many tasks ask at
    /// the same time; hooks run after it is stored, as for a synchronous
    /// read.
    ///
    /// Named `asyncValue` rather than an `async` overload of `value()`: in
    /// an `async` function, Swift prefers an `async` overload, and
    /// `try $x.value()` there would stop compiling.
    public func asyncValue(isolation: isolated (any Actor)? = #isolation) async throws -> Value {
        if cell.isResolved { return load().unsafelyUnwrapped }
        let registry = cell.registryInUse
        let resolution: CachedResolution?
        if case .partial = cell.mode {
            resolution = nil
        } else {
            resolution = cell.withLookup(registry: registry, object: object, stack: ResolutionStack.currentPointer) { $0 }
        }
        guard let resolution, let record = resolution.record, let maker = registry.asyncMaker(of: record),
            let asynchronous = maker.asynchronous
        else {
            return try value()
        }
        if let slot = maker.slot {
            // Made in the registration's slot (the forwarded one's, for a
            // forwarding): the synchronous read then finds it, stores it and
            // runs the hooks.
            try await asynchronous.makeSingleton(of: maker, in: slot, registry: registry)
            return try value()
        }
        let object = self.object
        try await asynchronous.makings.ensureMade(
            ObjectIdentifier(cell), label: "\(SpellNames.containerName(of: object)).\(propertyName)",
            isMade: { cell.isResolved }
        ) {
            let made = try await asynchronous.value(of: maker, registry: registry)
            let typed = try Registry.cast(made, to: Value.self, property: propertyName, sender: object, source: record.source)
            storeProduced(typed, hooks: resolution.needsHooks ? resolution : nil)
        }
        return try value()
    }

    /// Stores `made` as a production of the cell would (claim, store, hooks,
    /// publish), unless the property was given a value meanwhile.
    private func storeProduced(_ made: Value, hooks: CachedResolution?) {
        let me = UInt(bitPattern: ResolutionStack.currentPointer)
        let (claimed, _) = cell.state.compareExchange(
            expected: ResolvingCell<Value>.unresolved, desired: me | ResolvingCell<Value>.producing,
            ordering: .acquiringAndReleasing)
        guard claimed else { return }
        store(made)
        cell.finishProduction(object: object, value: made, hooks: hooks, keyPath: keyPath)
    }
}
