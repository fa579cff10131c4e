@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization
import Testing

// Issue 12, item 6: which registry a thread uses. A spelled property resolves
// through the registry that was current when its container was created.

private final class ScopedScreen {
    @Lazy var manager: RequestManager
    @Preference(store: InMemoryPreferenceStore()) var volume: Int = 3
}

private final class Made: Sendable {
    let label = Lock<String?>(nil)
}

/// Runs `body` on a new thread and waits for it.
private func onNewThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        body()
        done.signal()
    }
    done.wait()
}

private func scopedRegistry() -> Registry {
    let registry = Registry()
    registry.register(RequestManager.self) { _ in RequestManager(label: "scoped") }
    return registry
}

@Suite struct RegistryScopeTests {
    /// Before: the other thread resolved through `Registry.shared`, and the
    /// @Lazy property fell back to default construction.
    @Test func aContainerMadeInsideWithCurrentResolvesThroughItOnAnyThread() {
        let registry = scopedRegistry()
        let screen = UncheckedBox(value: Registry.withCurrent(registry) { ScopedScreen() })
        let made = Made()
        onNewThread { made.label.withLock { $0 = screen.value.manager.label } }
        #expect(made.label.withLock { $0 } == "scoped")
        let fromDispatch = Made()
        let done = DispatchSemaphore(value: 0)
        let other = UncheckedBox(value: Registry.withCurrent(registry) { ScopedScreen() })
        DispatchQueue.global().async {
            fromDispatch.label.withLock { $0 = other.value.manager.label }
            done.signal()
        }
        done.wait()
        #expect(fromDispatch.label.withLock { $0 } == "scoped")
    }

    /// The scope does not leak out of the closure: a container made after
    /// it, or made by a thread it started, uses the shared registry.
    @Test func aScopeDoesNotLeakIntoOtherThreadsObjects() {
        let registry = scopedRegistry()
        let made = Made()
        Registry.withCurrent(registry) {
            onNewThread { made.label.withLock { $0 = ScopedScreen().manager.label } }
        }
        #expect(made.label.withLock { $0 } == "default")
        #expect(ScopedScreen().manager.label == "default")
    }

    /// A scope around the read comes first (as before this rule), then the
    /// registry the container was made with, then `shared`.
    @Test func aScopeAroundTheReadComesFirst() {
        let made = Registry.withCurrent(scopedRegistry()) { ScopedScreen() }
        let other = Registry()
        other.register(RequestManager.self) { _ in RequestManager(label: "read scope") }
        #expect(Registry.withCurrent(other) { made.manager.label } == "read scope")
        #expect(Registry.withCurrent(other) { ScopedScreen().manager.label } == "read scope")
        let plain = ScopedScreen()
        #expect(plain.manager.label == "default")
    }

    @Test func bindingCurrentCarriesTheRegistryToAnotherThread() {
        let registry = scopedRegistry()
        let made = Made()
        let work = Registry.withCurrent(registry) {
            Registry.bindingCurrent { made.label.withLock { $0 = ScopedScreen().manager.label } }
        }
        onNewThread(work)
        #expect(made.label.withLock { $0 } == "scoped")
    }

    /// Containers an initializer creates resolve through that initializer's
    /// registry, even when the read that runs it is outside any scope.
    @Test func containersMadeByAnInitializerUseItsRegistry() throws {
        let registry = scopedRegistry()
        registry.register(ScopedScreen.self, container: NestedHolder.self) { _ in ScopedScreen() }
        let holder = Registry.withCurrent(registry) { NestedHolder() }
        // Read outside any scope: the screen is made by `registry`'s
        // initializer, so its own properties resolve through `registry`.
        #expect(holder.screen.manager.label == "scoped")
    }

    @Test func preferencesFollowTheSameRule() throws {
        let registry = Registry()
        let store = InMemoryPreferenceStore()
        registry.overridePreference(for: ScopedScreen.self, property: "volume", store: store)
        let screen = UncheckedBox(value: Registry.withCurrent(registry) { ScopedScreen() })
        onNewThread { screen.value.volume = 9 }
        #expect(store.value(forKey: "volume") == .int(9))
    }
}

private final class NestedHolder {
    @Lazy var screen: ScopedScreen
}
