public import BloodMagic
public import Testing

/// A Swift Testing trait that runs a test with a registry of its own as
/// `Registry.current` (task-local), so that tests overriding the same types
/// run in parallel without seeing each other's registrations.
///
/// ```swift
/// @Test(.registry { $0.register(Clock.self) { _ in FakeClock() } })
/// func remindsTomorrow() { ... }
/// ```
///
/// By default the test's registry is layered over the app's
/// (`Registry.shared`, or the `base` given): what the test registers wins,
/// everything else is the app's wiring (see `Registry.init(layeredOver:)`).
/// A strict one (`.registry(strict: true) { ... }`) has no base: a read
/// that the test did not register fails the test with the property's and
/// the container's names (an `Issue`), instead of reaching production
/// wiring; see ``RegistryTrait/strict``.
///
/// Child tasks the test starts (`async let`, task groups, `Task { }`) see
/// its registry. `Task.detached`, a `Thread` and a Dispatch block do not:
/// they see `Registry.shared`. Carry the registry over with
/// `Registry.bindingCurrent { ... }`, or wrap their body in
/// `Registry.withCurrent(registry) { ... }`.
public struct RegistryTrait: TestTrait, TestScoping {
    /// The registry the test's is layered over; nil when strict.
    public let base: Registry?
    /// Whether the test's registry has no base: an unregistered read
    /// (one that neither its registrations nor its resolvers serve, an
    /// Optional's included) records an `Issue` naming the property, its
    /// container and its type, then reads the property's fallback (nil, a `@Lazy`'s initial value or
    /// `init()` of a `DefaultConstructible` type; the registry's
    /// `readFailurePolicy` is `logAndUseFallback`). A property with no
    /// fallback still traps after the issue is recorded, as
    /// swift-dependencies' `unimplemented` without a placeholder does;
    /// `try $property.value()` throws the error instead.
    public var strict: Bool { base == nil }
    /// Registers the test's overrides on its registry.
    let configure: @Sendable (Registry) -> Void

    /// The registry a test runs with: layered over `base`, or strict.
    public func makeRegistry() -> Registry {
        guard let base else {
            let registry = Registry()
            registry.readFailurePolicy = .logAndUseFallback
            // The oldest resolver, so asked last: only what neither the
            // test's registrations nor its own resolvers serve reaches it.
            registry.addResolver { request in
                Issue.record(Comment(rawValue: RegistryTrait.unregisteredRead(request)))
                return .skip
            }
            configure(registry)
            return registry
        }
        let registry = Registry(layeredOver: base)
        configure(registry)
        return registry
    }

    /// What the issue of an unregistered read in a strict registry says.
    static func unregisteredRead(_ request: SpellResolutionRequest) -> String {
        "\(request.container.name).\(request.property) (\(request.type.name)) was read, but the test's strict "
            + "registry has nothing registered for it: register it in .registry(strict: true) { ... }"
    }

    /// Runs `function` (the test) with ``makeRegistry()``'s registry as
    /// `Registry.current`.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Registry.withCurrent(makeRegistry()) {
            try await function()
        }
    }
}

extension Trait where Self == RegistryTrait {
    /// Runs the test with a registry of its own, layered over `base`
    /// (`Registry.shared` by default), with `configure`'s registrations.
    public static func registry(
        over base: Registry = .shared,
        _ configure: @escaping @Sendable (Registry) -> Void = { _ in }
    ) -> Self {
        RegistryTrait(base: base, configure: configure)
    }

    /// Runs the test with a registry of its own; `strict: true` gives one
    /// with no base, whose unregistered reads fail the test
    /// (``RegistryTrait/strict``), `false` one layered over `Registry.shared`.
    public static func registry(
        strict: Bool,
        _ configure: @escaping @Sendable (Registry) -> Void = { _ in }
    ) -> Self {
        RegistryTrait(base: strict ? nil : .shared, configure: configure)
    }
}
