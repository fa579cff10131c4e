import BloodMagic
import Testing

/// A Swift Testing trait that runs a test with registrations replaced on a
/// registry (the shared one by default) and restores them afterwards:
///
/// ```swift
/// @Test(.registryOverrides { $0.register(RequestManager.self) { _ in Fake() } })
/// func usesFake() { ... }
/// ```
struct RegistryOverridesTrait: TestTrait, TestScoping {
    let registry: Registry
    let overrides: @Sendable (Registry) -> Void

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await registry.withOverrides(overrides) {
            try await Registry.withCurrent(registry) {
                try await function()
            }
        }
    }
}

extension Trait where Self == RegistryOverridesTrait {
    /// Replaces registrations on `registry` for the length of the test.
    static func registryOverrides(
        on registry: Registry = .shared,
        _ overrides: @escaping @Sendable (Registry) -> Void
    ) -> Self {
        RegistryOverridesTrait(registry: registry, overrides: overrides)
    }
}
