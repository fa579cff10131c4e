extension Registry {
    // MARK: Registering

    /// Registers an `async` initializer for `type` in any container: its
    /// value is made with `await`, once per scope however many tasks ask at
    /// the same time (see AsyncWiring.md).
    ///
    /// ```swift
    /// registry.registerAsync(Database.self) {
    ///     try await Database.connect(to: try await registry.resolve(Settings.self).url)
    /// }
    /// let database = try await registry.resolve(Database.self)
    /// ```
    ///
    /// A separate name from `register`, so that a synchronous initializer
    /// never picks this overload (or the reverse) by what its body happens
    /// to contain. The initializer takes no sender: a container is not
    /// `Sendable`, and would cross to the initializer's actor. It may be
    /// isolated to a global actor (`{ @MainActor in ... }`): it runs there.
    ///
    /// - Parameters:
    ///   - scope: ``SpellScope/singleton`` (the default: one value, made
    ///     once, which synchronous reads see once it is made), a custom
    ///     scope (the same, until ``reset(scope:)``), or
    ///     ``SpellScope/instance`` (a new value per resolution, per property
    ///     read through ``ResolvingProjection/asyncValue(isolation:)``; never ready
    ///     for a synchronous read). ``SpellScope/weak`` and
    ///     ``SpellScope/graph`` keep values around a synchronous
    ///     resolution and are not supported: a precondition failure.
    ///   - initializer: makes the value.
    ///
    /// A synchronous read of the property before its value is made throws
    /// (or traps, as any read failure does) with
    /// ``SpellError/asyncValueNotReady(property:container:type:source:)``;
    /// ``prepare(isolation:)`` makes every such singleton at start-up.
    @discardableResult
    public func registerAsync<Value>(
        _ type: Value.Type,
        scope: SpellScope = .singleton,
        fileID: String = #fileID,
        line: Int = #line,
        initializer: @escaping @isolated(any) @Sendable () async throws -> sending Value
    ) -> SpellHandle {
        precondition(
            scope.kind != .weak && scope.kind != .graph,
            "registerAsync(\(SpellTypeKey(type).name)): the \(scope) scope is not supported for async registrations")
        let key = SpellTypeKey(type)
        let source = spellSource(fileID, line)
        let notReady: @Sendable (AnyObject) throws -> Value = { _ in
            throw Registry.asyncValueNotReady(type: key, scope: scope, source: source)
        }
        let isolation = initializer.isolation.map { Registry.actorName($0) }
        let asynchronous = AsyncInitialization(isAsync: true, isolation: isolation) { _ in
            TypedSingletonBox(try await initializer())
        }
        return register(
            type: key, container: .any, scope: scope, source: source, initializer: { try notReady($0) },
            typed: TypedInitializer(notReady), asynchronous: asynchronous)
    }

    /// Registers a type-erased `async` initializer (the form a script
    /// bridge uses: a Lua initializer that waits for async Swift
    /// functions). It is resolved, made once per scope, and read before it
    /// is made as ``registerAsync(_:scope:fileID:line:initializer:)``'s
    /// are; its value is converted to the property's type as a type-erased
    /// synchronous initializer's is.
    ///
    /// - Parameters:
    ///   - type: the property type it serves (concrete name or protocol set).
    ///   - name: the registration name it serves under (nil: unnamed).
    ///   - container: which containers it applies to (default: any).
    ///   - scope: as for `registerAsync` (weak and graph are a precondition failure).
    ///   - source: where it was registered, "file:line".
    ///   - initializer: makes the value; it takes no sender (see `registerAsync`).
    @discardableResult
    public func registerAsyncInitializer(
        type: SpellTypeKey,
        name: String? = nil,
        container: ContainerMatch = .any,
        scope: SpellScope = .singleton,
        source: String,
        initializer: @escaping @Sendable () async throws -> Any
    ) -> SpellHandle {
        precondition(
            scope.kind != .weak && scope.kind != .graph,
            "registerAsyncInitializer(\(type.name)): the \(scope) scope is not supported for async registrations")
        let notReady: @Sendable (AnyObject) throws -> Any = { _ in
            throw Registry.asyncValueNotReady(type: type, scope: scope, source: source)
        }
        let asynchronous = AsyncInitialization(isAsync: true, isolation: nil) { _ in
            ErasedSingletonBox(try await initializer())
        }
        return register(
            type: type, container: container, scope: scope, source: source, initializer: notReady, typed: nil,
            name: name, asynchronous: asynchronous)
    }

    /// "MainActor" for the main actor, else the actor's type name.
    static func actorName(_ actor: any Actor) -> String {
        actor === MainActor.shared ? "MainActor" : SpellTypeKey(Swift.type(of: actor)).name
    }

    // MARK: Resolving

    /// Resolves a `Value` with no container object, waiting for an `async`
    /// registration's value to be made (once, however many tasks ask; see
    /// ``registerAsync(_:scope:fileID:line:initializer:)``), or hopping to
    /// the actor an initializer is isolated to
    /// (``registerOnMainActor(_:scope:fileID:line:initializer:)``). A
    /// synchronous registration is resolved as ``resolveValue(_:in:property:)``
    /// would (its initializer receives no container).
    ///
    /// A made singleton costs about what a synchronous resolution costs: it
    /// is read from the calling thread's lookup cache with no suspension.
    ///
    /// Cancellation: a task cancelled while it waits for another to make the
    /// value throws `CancellationError` at once; one cancelled while its own
    /// initializer runs gets what the initializer throws, nothing is kept,
    /// and the tasks that were waiting ask again (one of them makes it
    /// afresh).
    @inlinable
    public func resolve<Value>(_ type: Value.Type = Value.self, isolation: isolated (any Actor)? = #isolation) async throws -> Value {
        if let ready = readyValue(Value.self) { return ready }
        return try await resolveAsynchronously(Value.self, for: NoSender.instance, property: nil)
    }

    /// A singleton's value of `Value` with no container, if it is made: from
    /// the calling thread's lookup cache, with no lock (nil when it is not
    /// made, or when the lookup reports its resolutions: the slow path does).
    @inlinable
    func readyValue<Value>(_: Value.Type) -> Value? {
        withCachedResolution(valueType: Value.self, object: NoSender.instance, stack: ResolutionStack.currentPointer) { resolution in
            guard resolution.makesTyped(Value.self), !resolution.reports, let slot = resolution.typedSingleton else { return nil }
            return slot.typedValue(Value.self)
        }
    }

    /// The rest of ``resolve(_:isolation:)``: the record's async part waited
    /// for, or the synchronous resolution for `property` of `sender`.
    @usableFromInline
    func resolveAsynchronously<Value>(
        _: Value.Type, for sender: AnyObject, property: String?, isolation: isolated (any Actor)? = #isolation
    ) async throws -> Value {
        let key = FastResolutionKey(valueType: Value.self, containerType: Swift.type(of: sender))
        let resolution = lockedResolution(key: key, valueType: Value.self, object: sender)
        let property = property ?? SpellTypeKey(Value.self).name
        guard let record = resolution.record, let maker = asyncMaker(of: record), let asynchronous = maker.asynchronous else {
            return try resolve(Value.self, for: sender, property: property)
        }
        let value = try await asynchronous.value(of: maker, registry: self)
        if maker !== record, maker.slot != nil {
            // A forwarding registration's singleton is made: read it as any
            // read of the forwarded type does (its own decorators included).
            return try resolve(Value.self, for: sender, property: property)
        }
        if resolution.reports { reportResolved(sender: sender, property: property, valueType: Value.self, record: record) }
        return try Registry.cast(value, to: Value.self, property: property, sender: sender, source: record.source)
    }

    /// The record that makes `record`'s value with `await` (see
    /// ``InitializerRecord/asyncMaker``); for a forwarding registration,
    /// the forwarded one with its own type's decorators, so that its
    /// singleton is decorated once whichever type asks first.
    func asyncMaker(of record: InitializerRecord) -> InitializerRecord? {
        guard let maker = record.asyncMaker else { return nil }
        guard maker !== record else { return maker }
        return withResolvingState { state in state.decorated(maker, for: maker.type) } ?? maker
    }

    // MARK: Start-up

    /// Makes every singleton (and custom-scoped value) whose initializer is
    /// `async` or isolated to an actor, so that synchronous reads of them
    /// just work afterwards; in dependency order: an initializer that
    /// resolves another with `await` makes it first, and one that reads
    /// another synchronously before it is made is tried again once the
    /// others are made.
    ///
    /// ```swift
    /// try await registry.prepare()
    /// let screen = Screen()   // screen.database: no await needed now
    /// ```
    ///
    /// Throws the first failure that making the others did not cure (a
    /// cycle of synchronous reads stays ``SpellError/asyncValueNotReady(property:container:type:source:)``).
    /// Registrations made meanwhile are not prepared.
    ///
    /// At most n passes over the n registrations it prepares (each pass
    /// makes at least one, or it stops): O(n²) initializer attempts in the
    /// worst case, for the app's own Swift registrations only.
    public func prepare(isolation: isolated (any Actor)? = #isolation) async throws {
        // Decorated as a lookup of their own type would serve them, so that
        // a prepared singleton is decorated as an awaited one is.
        var pending = withResolvingState { state in
            state.initializers.filter { $0.asynchronous != nil && $0.slot != nil }.map { state.decorated($0, for: $0.type) ?? $0 }
        }
        while !pending.isEmpty {
            var waiting: [InitializerRecord] = []
            var firstFailure: (any Error)?
            for record in pending {
                do {
                    _ = try await record.asynchronous.unsafelyUnwrapped.value(of: record, registry: self)
                } catch let error as SpellError {
                    guard case .asyncValueNotReady = error else { throw error }
                    // It read another not made yet: once that one is made.
                    waiting.append(record)
                    if firstFailure == nil { firstFailure = error }
                }
            }
            if waiting.count == pending.count, let firstFailure { throw firstFailure }
            pending = waiting
        }
    }
}
