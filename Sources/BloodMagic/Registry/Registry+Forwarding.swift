// Forwarding: one registration serves several types (Swinject's
// `.implements`), so a singleton that is both `any Store` and `any Cache`
// is one object.
//
// A forwarding registration is an initializer record of its own type whose
// value is the forwarded registration's (`produce`, so a singleton's slot is
// shared); it has its own handle and source, and goes when the registration
// it forwards to goes.

extension Registry {
    /// Makes the initializer registered as `handle` serve properties and
    /// resolutions of `type` too, with the same container rule and name:
    /// for a singleton, the same object. Returns the forwarding
    /// registration's handle (unregister it to stop forwarding), or nil when
    /// `handle` is not a registered initializer.
    ///
    /// ```swift
    /// let store = registry.register(SQLStore.self, scope: .singleton) { _ in SQLStore() }
    /// registry.forward((any Store).self, to: store)
    /// registry.forward((any Cache).self, to: store)
    /// ```
    ///
    /// The value is cast to `type` where it is read: a value that is not a
    /// `type` fails there, naming this call's `file:line`. Unregistering the
    /// forwarded registration (or a reload replacing it) removes its
    /// forwarding registrations too.
    @discardableResult
    public func forward<Value>(
        _ type: Value.Type, to handle: SpellHandle, fileID: String = #fileID, line: Int = #line
    ) -> SpellHandle? {
        forward(type: SpellTypeKey(type), to: handle, source: spellSource(fileID, line))
    }

    /// ``forward(_:to:fileID:line:)`` by type key (the form a script bridge uses).
    @discardableResult
    public func forward(type: SpellTypeKey, to handle: SpellHandle, source: String) -> SpellHandle? {
        state.withLock { state -> SpellHandle? in
            guard let target = state.initializerRecord(handle) else { return nil }
            // A forwarder of a forwarder serves the original's value.
            let original = target.forwarded ?? target
            _ = state.catalog.note(type)
            return state.addInitializer { forwarding in
                InitializerRecord(
                    handle: forwarding, type: type, container: original.container, scope: original.scope,
                    source: source, make: InitializerRecord.producing(original), slot: nil,
                    typed: nil, name: original.name, forwarded: original)
            }
        }
    }

    /// Registers an initializer for `type` that serves each type of
    /// `implements` too (see ``forward(_:to:fileID:line:)``): for a
    /// singleton, one object for all of them.
    ///
    /// ```swift
    /// registry.register(SQLStore.self, scope: .singleton, implements: [(any Store).self, (any Cache).self]) { _ in
    ///     SQLStore()
    /// }
    /// ```
    @discardableResult
    public func register<Value>(
        _ type: Value.Type,
        scope: SpellScope = .instance,
        implements: [Any.Type],
        fileID: String = #fileID,
        line: Int = #line,
        initializer: @escaping @Sendable (_ sender: AnyObject) throws -> Value
    ) -> SpellHandle {
        let handle = register(type, scope: scope, fileID: fileID, line: line, initializer: initializer)
        for forwarded in implements {
            forward(type: SpellTypeKey(forwarded), to: handle, source: spellSource(fileID, line))
        }
        return handle
    }
}

extension Registry {
    /// Registers an `async` initializer for `type` (see
    /// ``registerAsync(_:scope:fileID:line:initializer:)``) that serves each
    /// type of `implements` too: for a singleton, one object, made once
    /// however many tasks ask for whichever of its types.
    ///
    /// ```swift
    /// registry.registerAsync(SQLStore.self, implements: [(any Store).self, (any Cache).self]) {
    ///     try await SQLStore.open()
    /// }
    /// let cache = try await registry.resolve((any Cache).self)   // the SQLStore
    /// ```
    ///
    /// ``forward(_:to:fileID:line:)`` forwards to an async registration the
    /// same way; a forwarded type is read with `await` as the registration is.
    @discardableResult
    public func registerAsync<Value>(
        _ type: Value.Type,
        scope: SpellScope = .singleton,
        implements: [Any.Type],
        fileID: String = #fileID,
        line: Int = #line,
        initializer: @escaping @isolated(any) @Sendable () async throws -> sending Value
    ) -> SpellHandle {
        let handle = registerAsync(type, scope: scope, fileID: fileID, line: line, initializer: initializer)
        for forwarded in implements {
            forward(type: SpellTypeKey(forwarded), to: handle, source: spellSource(fileID, line))
        }
        return handle
    }
}

extension Registry {
    /// How many records the registry's handle lookups have looked at so
    /// far (see `RegistryState.initializerRecord`), for tests that check
    /// a forwarding costs O(1), not a scan of the registry.
    @_spi(BloodMagicInternals) public var recordsVisitedByHandleLookups: Int {
        state.withLock { $0.recordsVisited }
    }
}

extension RegistryState {
    /// The initializer registered as `handle`: staged (in an open stage),
    /// or in force. O(open stages): a hash lookup in each index.
    mutating func initializerRecord(_ handle: SpellHandle) -> InitializerRecord? {
        for stage in stages.values {
            recordsVisited += 1
            if let staged = stage.initializers[handle: handle] { return staged }
        }
        recordsVisited += 1
        return initializers[handle: handle]
    }

    /// `handles`, with every initializer (in force or staged) that
    /// forwards to one of them: O(handles × open stages + forwarders
    /// found), through `forwardersByTarget`, not a scan.
    func withForwarders(_ handles: Set<SpellHandle>) -> Set<SpellHandle> {
        var all = handles
        for handle in handles {
            if let forwarders = forwardersByTarget[handle] { all.formUnion(forwarders) }
            for stage in stages.values {
                if let forwarders = stage.forwardersByTarget[handle] { all.formUnion(forwarders) }
            }
        }
        return all
    }
}

extension InitializerRecord {
    /// The `make` of a forwarding to `original`: its value, through its slot.
    static func producing(_ original: InitializerRecord) -> @Sendable (AnyObject) throws -> Any {
        { [original] sender in try original.produce(for: sender) }
    }

    /// This forwarding registration, forwarding to `original` instead (the
    /// record that replaced the one it forwarded to, e.g. on `reset(scope:)`).
    func forwarding(to original: InitializerRecord) -> InitializerRecord {
        replacing(make: Self.producing(original), slot: slot, forwarded: original)
    }
}
