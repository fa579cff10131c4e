import Logging

/// What reading a spelled property does when its value cannot be made: no
/// registration serves it, its initializer failed, returned nil for a
/// non-optional property or a value of the wrong type, a dependency cycle.
///
/// A property getter cannot throw. By default it traps with the error's
/// message (``trap``): a wiring mistake is a programming error, and the
/// first read shows it. A server that must not go down on one request's
/// read chooses ``logAndUseFallback`` and, on request paths, reads with
/// `try $property.value()`, which throws the error under every policy, so
/// that the request fails and the process goes on:
///
/// ```swift
/// Registry.shared.readFailurePolicy = .logAndUseFallback
///
/// func handle(_ users: UsersViewController) throws -> String {
///     try users.$requestManager.value().fetch("users")   // throws, never traps
/// }
/// ```
///
/// The policy applies to `@Lazy`, `@Injectable` and `@Partial` properties
/// (instance and static) resolved through the registry. It does not cover
/// misuse the registry has no part in: assigning a `@Final` twice, or
/// reading it before its first assignment, traps under every policy.
public enum ReadFailurePolicy: Sendable, Equatable {
    /// Trap with the error's message (the default).
    case trap
    /// Log the error (the registry's ``Registry/logger``, level `error`,
    /// with the container, property, type and error as metadata) and read
    /// the property's fallback: nil for an Optional (nothing is stored, so
    /// the next read tries again), the initial value of a `@Lazy` or, for a
    /// ``DefaultConstructible`` type, `init()` (stored, as a value the
    /// registry made). A property with no fallback still traps, after
    /// logging. `try $property.value()` throws as always, and logs nothing.
    case logAndUseFallback
}

extension Registry {
    /// What a spelled property's getter does when its value cannot be made
    /// (see ``ReadFailurePolicy``); ``ReadFailurePolicy/trap`` by default.
    /// Read only when a read fails: it costs nothing on the read paths.
    public var readFailurePolicy: ReadFailurePolicy {
        get { failurePolicy.load(ordering: .relaxed) == 0 ? .trap : .logAndUseFallback }
        set { failurePolicy.store(newValue == .trap ? 0 : 1, ordering: .relaxed) }
    }

    /// Called with every failed read of a spelled property's getter that
    /// resolves through this registry, before the ``readFailurePolicy``
    /// applies (so also just before a trap). Nil by default. A test
    /// registry sets it to fail the test (`BloodMagicTesting`'s strict
    /// `.registry` records an `Issue`); it runs on the reading thread,
    /// and must not read spelled properties of this registry.
    /// `try $property.value()` throws instead and calls nothing.
    public var readFailureHandler: (@Sendable (ReadFailure) -> Void)? {
        get { failureHandler.withLock { $0 } }
        set { failureHandler.withLock { $0 = newValue } }
    }

    /// Tells the ``readFailureHandler``, if any, of a failed read.
    func reportReadFailure(_ error: any Error, container: String, property: String, type: String) {
        guard let handler = failureHandler.withLock({ $0 }) else { return }
        handler(ReadFailure(container: container, property: property, type: type, error: error))
    }

    /// Logs a failed read the policy recovers from (`fallback` says how).
    func logReadFailure(_ error: any Error, container: String, property: String, type: String, fallback: String) {
        log.logger.error(
            "reading \(container).\(property) failed, so it reads \(fallback) (readFailurePolicy: logAndUseFallback): \(error)",
            metadata: [
                "container": .string(container), "property": .string(property), "type": .string(type),
                "error": .string("\(error)"), "fallback": .string(fallback),
            ])
    }
}

/// A spelled property's read that failed (see ``Registry/readFailureHandler``).
public struct ReadFailure: Sendable, CustomStringConvertible {
    /// The container's type name.
    public let container: String
    /// The property's name.
    public let property: String
    /// The property's type name (an Optional's wrapped type).
    public let type: String
    /// Why it failed (usually a ``SpellError``).
    public let error: any Error

    /// "reading Container.property (Type) failed: error".
    public var description: String { "reading \(container).\(property) (\(type)) failed: \(error)" }
}
