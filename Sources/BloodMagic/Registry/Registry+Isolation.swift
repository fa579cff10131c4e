import Foundation

extension Registry {
    /// Registers a synchronous initializer isolated to the main actor: it
    /// always runs there, so it may touch `@MainActor` state with no
    /// `MainActor.assumeIsolated` of its own.
    ///
    /// ```swift
    /// registry.registerOnMainActor(ViewModel.self) { ViewModel() }   // a @MainActor class
    ///
    /// @MainActor func show() {
    ///     let screen = Screen()
    ///     _ = screen.model            // read on the main actor: made in place
    /// }
    /// func load() async throws {
    ///     _ = try await registry.resolve(ViewModel.self)   // elsewhere: hops to the main actor
    /// }
    /// ```
    ///
    /// A synchronous read on the main actor runs it in place. A synchronous
    /// read elsewhere cannot hop: it fails with
    /// ``SpellError/isolatedInitializer(property:container:type:actor:source:)``
    /// unless its singleton is made. `await` reads
    /// (``resolve(_:isolation:)``, ``ResolvingProjection/asyncValue(isolation:)``,
    /// ``prepare(isolation:)`` for a singleton) hop to the main actor to make it.
    ///
    /// The initializer takes no sender (a container is not `Sendable`) and
    /// its value must be `Sendable` (it crosses from the main actor to the
    /// reader; a `@MainActor` class is).
    /// ``SpellScope/weak`` and ``SpellScope/graph`` are not supported (a
    /// precondition failure).
    @discardableResult
    public func registerOnMainActor<Value: Sendable>(
        _ type: Value.Type,
        scope: SpellScope = .instance,
        fileID: String = #fileID,
        line: Int = #line,
        initializer: @escaping @MainActor @Sendable () throws -> Value
    ) -> SpellHandle {
        Registry.checkIsolatedScope("registerOnMainActor", type, scope)
        let hop: @Sendable (SingletonSlot?) async throws -> Value? = { @MainActor slot in
            // A synchronous read on the main actor may have made it meanwhile.
            if let slot, slot.existing != nil { return nil }
            return try initializer()
        }
        return registerIsolatedRecord(
            type, scope: scope, source: spellSource(fileID, line), actorName: "MainActor",
            inPlace: {
                guard MainActorCheck.isOnMainActor else { return nil }
                return try MainActor.assumeIsolated { try initializer() }
            },
            hop: hop)
    }

    /// Registers a synchronous initializer isolated to any actor: a global
    /// actor (`{ @DatabaseActor in ... }`, `{ @MainActor in ... }`), or an
    /// actor instance whose `isolated` parameter the closure captures. It
    /// always runs on that actor, so it may call the actor's synchronous
    /// code with no `assumeIsolated`.
    ///
    /// ```swift
    /// @globalActor actor DatabaseActor {
    ///     static let shared = DatabaseActor()
    /// }
    /// registry.registerIsolated(Connection.self, scope: .singleton) { @DatabaseActor in
    ///     Connection()     // a @DatabaseActor class
    /// }
    /// ```
    ///
    /// The actor is written once, in the closure's own type, where the
    /// compiler checks the body against it; the registry reads it from the
    /// closure (`initializer.isolation`) at run time. A closure that is not
    /// isolated to an actor is a precondition failure (use `register`).
    ///
    /// Reads behave as for ``registerOnMainActor(_:scope:fileID:line:initializer:)``,
    /// which is this for the main actor with a statically typed closure:
    /// a synchronous read **on that actor** runs it in place; a synchronous
    /// read elsewhere fails with
    /// ``SpellError/isolatedInitializer(property:container:type:actor:source:)``
    /// (naming the actor's type) unless its singleton is made; `await`
    /// reads and ``prepare(isolation:)`` hop to the actor. Whether a
    /// synchronous read runs on the actor is asked of the runtime without
    /// trapping through `Task.immediate` (see AsyncWiring.md); before
    /// macOS 26 / iOS 26, where `Task.immediate` is missing, a synchronous
    /// read on the actor fails as a read elsewhere does.
    ///
    /// The value must be `Sendable` (it crosses from the actor to the
    /// reader). ``SpellScope/weak`` and ``SpellScope/graph`` are not
    /// supported (a precondition failure).
    @discardableResult
    public func registerIsolated<Value: Sendable>(
        _ type: Value.Type,
        scope: SpellScope = .instance,
        fileID: String = #fileID,
        line: Int = #line,
        initializer: @escaping @isolated(any) @Sendable () throws -> Value
    ) -> SpellHandle {
        Registry.checkIsolatedScope("registerIsolated", type, scope)
        guard let actor = initializer.isolation else {
            preconditionFailure(
                "registerIsolated(\(SpellTypeKey(type).name)): the initializer is not isolated to an actor "
                    + "(write `{ @SomeGlobalActor in ... }`, or register it with `register`)")
        }
        return registerIsolatedRecord(
            type, scope: scope, source: spellSource(fileID, line), actorName: Registry.actorName(actor),
            inPlace: { try IsolatedInPlaceRun.run(initializer, on: actor) },
            hop: { slot in try await Registry.runIsolated(on: actor, slot: slot, initializer) })
    }

    /// Traps on a scope an isolated registration cannot have (weak and
    /// graph values are kept by the reading thread's resolution).
    private static func checkIsolatedScope<Value>(_ function: String, _ type: Value.Type, _ scope: SpellScope) {
        precondition(
            scope.kind != .weak && scope.kind != .graph,
            "\(function)(\(SpellTypeKey(type).name)): the \(scope) scope is not supported for isolated registrations")
    }

    /// The registration both isolated forms make: `inPlace` runs the
    /// initializer when the reading thread is on the actor (nil when it is
    /// not: then the read is ``SpellError/isolatedInitializer``), `hop`
    /// runs it on the actor for an `await` (nil when a synchronous read
    /// there made the value meanwhile).
    private func registerIsolatedRecord<Value: Sendable>(
        _ type: Value.Type, scope: SpellScope, source: String, actorName: String,
        inPlace: @escaping @Sendable () throws -> Value?,
        hop: @escaping @Sendable (SingletonSlot?) async throws -> Value?
    ) -> SpellHandle {
        let key = SpellTypeKey(type)
        let read: @Sendable (AnyObject) throws -> Value = { _ in
            guard let value = try inPlace() else {
                throw Registry.notOnActor(actorName, type: key, scope: scope, source: source)
            }
            return value
        }
        let asynchronous = AsyncInitialization(isAsync: false, isolation: actorName) { slot in
            try await hop(slot).map { TypedSingletonBox($0) }
        }
        return register(
            type: key, container: .any, scope: scope, source: source, initializer: { try read($0) },
            typed: TypedInitializer(read), asynchronous: asynchronous)
    }

    /// Runs `initializer` on `actor` (the await path of ``registerIsolated(_:scope:fileID:line:initializer:)``):
    /// nil when, there, it finds the value of `slot` made already (by a
    /// synchronous read on the actor meanwhile).
    private static func runIsolated<Value: Sendable>(
        on actor: isolated any Actor, slot: SingletonSlot?, _ initializer: @isolated(any) @Sendable () throws -> Value
    ) async throws -> Value? {
        if let slot, slot.existing != nil { return nil }
        return try await initializer()
    }
}

/// Whether the calling code runs on the main actor, asked without trapping
/// (`MainActor.assertIsolated` traps; the runtime has no public question).
///
/// The main actor's executor is the main dispatch queue: code runs on the
/// main actor when it runs on the main thread (where that queue's jobs run
/// on Darwin, and where top-level code runs), or when it runs in a job of
/// the main queue (on Linux a worker thread may drain it while the main
/// thread waits, as the test runner does), which the queue-specific value
/// set on the main queue says.
enum MainActorCheck {
    /// The key of the value marking the main queue.
    private static let mainQueueKey = DispatchSpecificKey<Bool>()
    /// Sets the value, once.
    private static let marked: Bool = {
        DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
        return true
    }()

    static var isOnMainActor: Bool {
        if Thread.isMainThread { return true }
        guard marked else { return false }
        return DispatchQueue.getSpecific(key: mainQueueKey) ?? false
    }
}
