@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization
import Testing

// Issue 12, item 1: resolutions that recurse through new objects.

/// A's initializer makes an A and reads its `child`, whose initializer makes
/// a Child and reads its `parent`, and so on: no object's property is ever
/// read twice, so only the depth backstop can stop it.
private final class Parent {
    @Injectable var child: Child
}

private final class Child {
    @Injectable var parent: Parent
}

/// A tree whose initializer stops at some depth: it re-enters its own
/// initializer, legitimately.
private final class TreeNode {
    let level: Int
    init(level: Int) { self.level = level }
    @Injectable var child: TreeNode?
}

/// Registers the endless Parent ↔ Child wiring on a new registry.
private func endlessFamily(reads: CallCounter? = nil) -> Registry {
    let registry = Registry()
    registry.register(Child.self) { _ in
        reads?.increment()
        let child = Child()
        _ = try child.$parent.value()
        return child
    }
    registry.register(Parent.self) { _ in
        reads?.increment()
        let parent = Parent()
        _ = try parent.$child.value()
        return parent
    }
    return registry
}

/// Runs `body` on a new thread with a stack of `stackSize` bytes and waits.
private func onThread<T: Sendable>(stackSize: Int, _ body: @escaping @Sendable () -> T) -> T? {
    let result = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        result.set(body())
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    return done.wait(timeout: .now() + 60) == .success ? result.value : nil
}

private final class ResultBox<T: Sendable>: Sendable {
    private let stored = Lock<T?>(nil)
    func set(_ value: T) { stored.withLock { $0 = value } }
    var value: T? { stored.withLock { $0 } }
}

@Suite struct RunawayResolutionTests {
    /// Before: a stack overflow (the test process died with a segfault).
    @Test func aCycleThroughNewObjectsIsADependencyCycleWithItsChain() throws {
        let registry = endlessFamily()
        let error = #expect(throws: SpellError.self) {
            try Registry.withCurrent(registry) { try Parent().$child.value() }
        }
        #expect(error == .dependencyCycle(chain: ["Parent.child", "Child.parent", "Parent.child"]))
        #expect(error?.description == "dependency cycle: Parent.child -> Child.parent -> Parent.child")
        #expect(Registry.resolutionsInProgress.isEmpty)
    }

    @Test func theCycleIsShownFromWhereTheRepetitionStarts() throws {
        let registry = endlessFamily()
        let error = #expect(throws: SpellError.self) {
            try Registry.withCurrent(registry) {
                // An outer step that is not part of the loop.
                try Registry.trackResolution(container: "App", property: "family", object: nil) {
                    try Child().$parent.value()
                }
            }
        }
        #expect(error == .dependencyCycle(chain: ["Child.parent", "Parent.child", "Child.parent"]))
    }

    @Test func aFiniteTreeMayReenterItsOwnInitializer() throws {
        let registry = Registry()
        let made = CallCounter()
        registry.register(TreeNode.self, container: TreeNode.self) { parent in
            made.increment()
            let node = TreeNode(level: parent.level + 1)
            // Each node's initializer builds the next level, down to 12.
            if node.level < 12 { _ = try node.$child.value() }
            return node
        }
        let root = Registry.withCurrent(registry) { TreeNode(level: 0) }
        var node = try #require(try root.$child.value())
        while node.level < 12 {
            #expect(node.$child.isResolved)
            node = try #require(try node.$child.value())
        }
        #expect(node.level == 12)
        #expect(made.value == 12)
    }

    @Test func aChainDeeperThanTheLimitThatDoesNotRepeatIsTooDeep() throws {
        func nest(_ level: Int) throws {
            try Registry.trackResolution(container: "Step\(level)", property: "next", object: nil) {
                try nest(level + 1)
            }
        }
        let error = try #require(throws: SpellError.self) { try nest(0) }
        guard case .resolutionTooDeep(let chain, let limit) = error else {
            Issue.record("expected resolutionTooDeep, got \(error)")
            return
        }
        #expect(limit == 200)
        #expect(chain.count == 201)
        #expect(chain.first == "Step0.next")
        #expect(chain.last == "Step200.next")
        #expect(error.description.hasPrefix("resolution deeper than 200 nested steps"))
        #expect(error.description.contains("Step0.next -> Step1.next"))
        #expect(error.description.hasSuffix("Step199.next -> Step200.next"))
        #expect(Registry.resolutionsInProgress.isEmpty)
    }

    /// The backstop watches the thread's stack too: a small stack ends the
    /// chain early, with the same error, instead of overflowing.
    @Test func aRunawayOnASmallStackIsAnErrorNotACrash() throws {
        let reads = CallCounter()
        let registry = endlessFamily(reads: reads)
        let message = onThread(stackSize: 192 << 10) { () -> String in
            do {
                _ = try Registry.withCurrent(registry) { try Parent().$child.value() }
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(message == "dependency cycle: Parent.child -> Child.parent -> Parent.child")
        #expect(reads.value > 3)
    }

    /// The property stays unresolved after the error, and a later wiring
    /// that ends serves it.
    @Test func afterTheErrorThePropertiesAreUnresolved() throws {
        let registry = endlessFamily()
        let parent = Registry.withCurrent(registry) { Parent() }
        #expect(throws: SpellError.self) { try parent.$child.value() }
        #expect(!parent.$child.isResolved)
        registry.register(Parent.self) { _ in Parent() }
        let child = try parent.$child.value()
        #expect(child.$parent.isResolved)
        #expect(parent.$child.isResolved)
    }
}
