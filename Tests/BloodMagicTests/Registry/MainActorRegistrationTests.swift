import BloodMagic
import Synchronization
import Testing
import TestSupport

// Issue 30: registrations isolated to the main actor. Their initializers
// assert they run there (`MainActor.assertIsolated` traps otherwise).

@MainActor
private final class ScreenModel {
    let attempt: Int
    init(attempt: Int) {
        MainActor.assertIsolated()
        self.attempt = attempt
    }
}

private final class ModelScreen {
    @Injectable var model: ScreenModel

    init(_ registry: Registry) {
        _model = Injectable(registry: registry)
    }
}

/// Counts the initializer's runs.
private typealias MadeCount = CallCounter

private func mainActorRegistry(scope: SpellScope = .instance, _ made: MadeCount) -> Registry {
    let registry = Registry()
    registry.registerOnMainActor(ScreenModel.self, scope: scope) {
        MainActor.assertIsolated()
        return ScreenModel(attempt: made.increment())
    }
    return registry
}

@Suite struct MainActorRegistrationTests {
    @MainActor @Test func aReadOnTheMainActorRunsTheInitializerInPlace() {
        let made = MadeCount()
        let registry = mainActorRegistry(made)
        #expect(ModelScreen(registry).model.attempt == 1)
        #expect(ModelScreen(registry).model.attempt == 2)
    }

    @Test func aSynchronousReadElsewhereIsAClearError() async {
        let made = MadeCount()
        let registry = mainActorRegistry(made)
        let thrown = await Task.detached { () -> SpellError? in
            do {
                _ = try ModelScreen(registry).$model.value()
                return nil
            } catch {
                return error as? SpellError
            }
        }.value
        guard case let .isolatedInitializer(property, container, type, actor, _) = thrown else {
            Issue.record("expected isolatedInitializer, got \(String(describing: thrown))")
            return
        }
        #expect([property, container, type, actor] == ["model", "ModelScreen", "ScreenModel", "MainActor"])
        #expect(thrown?.description.contains("is isolated to MainActor") == true)
        #expect(made.value == 0)
    }

    @Test func anAwaitedReadElsewhereHopsToTheMainActor() async throws {
        let made = MadeCount()
        let registry = mainActorRegistry(made)
        let attempts = try await Task.detached {
            let resolved = try await registry.resolve(ScreenModel.self)
            let property = try await ModelScreen(registry).$model.asyncValue()
            return [resolved.attempt, property.attempt]
        }.value
        #expect(attempts == [1, 2])
    }

    @Test func aMainActorSingletonPreparedIsReadSynchronouslyAnywhere() async throws {
        let made = MadeCount()
        let registry = mainActorRegistry(scope: .singleton, made)
        try await Task.detached { try await registry.prepare() }.value
        let attempt = await Task.detached { ModelScreen(registry).model.attempt }.value
        #expect(attempt == 1)
        #expect(made.value == 1)
        #expect(registry.entries.first?.isolation == "MainActor")
        #expect(registry.entries.first?.description.contains("on MainActor") == true)
    }

    /// An async registration whose initializer is `@MainActor` runs there,
    /// however it is read.
    @Test func anAsyncMainActorInitializerRunsOnTheMainActor() async throws {
        let registry = Registry()
        registry.registerAsync(ScreenModel.self) { @MainActor in
            MainActor.assertIsolated()
            await Task.yield()
            return ScreenModel(attempt: 1)
        }
        let model = try await Task.detached { try await registry.resolve(ScreenModel.self) }.value
        #expect(model.attempt == 1)
        #expect(registry.entries.first?.isolation == "MainActor")
        #expect(registry.entries.first?.isAsync == true)
        #expect(registry.explain(SpellTypeKey(ScreenModel.self), in: nil).description
            .contains("wins: the singleton (async, on MainActor) registered at"))
    }
}
