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
        precondition(
            scope.kind != .weak && scope.kind != .graph,
            "registerOnMainActor(\(SpellTypeKey(type).name)): the \(scope) scope is not supported for isolated registrations")
        let key = SpellTypeKey(type)
        let source = spellSource(fileID, line)
        let inPlace: @Sendable (AnyObject) throws -> Value = { _ in
            guard MainActorCheck.isOnMainActor else { throw Registry.notOnMainActor(type: key, scope: scope, source: source) }
            return try MainActor.assumeIsolated { try initializer() }
        }
        let hop: @Sendable (SingletonSlot?) async throws -> Value? = { @MainActor slot in
            // A synchronous read on the main actor may have made it meanwhile.
            if let slot, slot.existing != nil { return nil }
            return try initializer()
        }
        let asynchronous = AsyncInitialization(isAsync: false, isolation: "MainActor") { slot in
            try await hop(slot).map { TypedSingletonBox($0) }
        }
        return register(
            type: key, container: .any, scope: scope, source: source, initializer: { try inPlace($0) },
            typed: TypedInitializer(inPlace), asynchronous: asynchronous)
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
