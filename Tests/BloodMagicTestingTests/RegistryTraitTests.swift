import BloodMagic
import BloodMagicTesting
import Foundation
import Testing

// Issue 30: `.registry { ... }` gives each test a task-local registry layered
// over the app's, so that parallel tests overriding the same type each see
// their own; a strict one fails the test on an unregistered read.

protocol TraitClock: Sendable {
    var label: String { get }
}

struct AppClock: TraitClock {
    var label: String { "app" }
}

struct FakeClock: TraitClock {
    let label: String
}

final class TraitGreeter: Sendable {
    let name: String
    init(name: String) { self.name = name }
}

final class Reminder {
    @Injectable var clock: any TraitClock
    @Injectable var greeter: TraitGreeter
    @Injectable var optionalGreeter: TraitGreeter?
}

/// The app's wiring these tests layer over (not `Registry.shared`, which
/// other suites of the process may change).
let traitAppRegistry: Registry = {
    let registry = Registry()
    registry.register((any TraitClock).self) { _ in AppClock() }
    registry.register(TraitGreeter.self) { _ in TraitGreeter(name: "app") }
    return registry
}()

/// Both parallel tests must reach it before either goes on: each waits for
/// the other, so they provably run at the same time. A test that waits
/// alone (the other not running, or run serially) fails after a deadline
/// instead of hanging.
actor Rendezvous {
    static let shared = Rendezvous()
    private var arrived = 0
    private var waiting: [CheckedContinuation<Bool, Never>] = []

    /// True once two callers have arrived; false after `seconds` alone.
    func meet(within seconds: Double = 30) async -> Bool {
        arrived += 1
        if arrived == 2 {
            for continuation in waiting { continuation.resume(returning: true) }
            waiting.removeAll()
            return true
        }
        let alone = Task { [weak self] in
            try? await Task.sleep(for: .seconds(seconds))
            await self?.giveUp()
        }
        defer { alone.cancel() }
        return await withCheckedContinuation { waiting.append($0) }
    }

    private func giveUp() {
        for continuation in waiting { continuation.resume(returning: false) }
        waiting.removeAll()
    }
}

@Suite struct RegistryTraitParallelTests {
    @Test(.registry(over: traitAppRegistry) { $0.register((any TraitClock).self) { _ in FakeClock(label: "one") } })
    func firstOfTwoParallelTestsSeesItsOwnClock() async throws {
        #expect(try Reminder().$clock.value().label == "one")
        #expect(await Rendezvous.shared.meet(), "the two tests did not run at the same time")
        // The other test has registered its clock by now: still ours.
        #expect(try Reminder().$clock.value().label == "one")
        #expect(try Reminder().$greeter.value().name == "app")
    }

    @Test(.registry(over: traitAppRegistry) { $0.register((any TraitClock).self) { _ in FakeClock(label: "two") } })
    func secondOfTwoParallelTestsSeesItsOwnClock() async throws {
        #expect(try Reminder().$clock.value().label == "two")
        #expect(await Rendezvous.shared.meet(), "the two tests did not run at the same time")
        #expect(try Reminder().$clock.value().label == "two")
        #expect(try Reminder().$greeter.value().name == "app")
    }
}

@Suite struct RegistryTraitTests {
    @Test(.registry(over: traitAppRegistry) { $0.register((any TraitClock).self) { _ in FakeClock(label: "child") } })
    func childTasksInheritTheTestsRegistry() async throws {
        async let fromAsyncLet = Reminder().$clock.value().label
        let fromGroup = try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask { try Reminder().$clock.value().label }
            return try await group.next() ?? ""
        }
        let fromTask = try await Task { try Reminder().$clock.value().label }.value
        #expect(try await fromAsyncLet == "child")
        #expect(fromGroup == "child")
        #expect(fromTask == "child")
    }

    @Test(.registry(over: traitAppRegistry) { $0.register((any TraitClock).self) { _ in FakeClock(label: "bound") } })
    func detachedWorkDoesNotInheritItButCanBeBoundToIt() async throws {
        // Task-locals do not reach a detached task, a Thread or a Dispatch
        // block: they see Registry.shared, which serves no clock.
        let detached = await Task.detached { try? Reminder().$clock.value().label }.value
        #expect(detached == nil)
        let onQueue = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: try? Reminder().$clock.value().label) }
        }
        #expect(onQueue == nil)
        // The remedy: bind the work to the registry current now.
        let bound = Registry.bindingCurrent { try? Reminder().$clock.value().label }
        #expect(await Task.detached { bound() }.value == "bound")
        let onThread = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: bound()) }.start()
        }
        #expect(onThread == "bound")
        // Or a container made inside the test, which keeps its registry.
        let reminder = Reminder()
        #expect(await Task.detached { try? reminder.$clock.value().label }.value == "bound")
    }

    @Test func aTestWithoutTheTraitSeesTheBase() throws {
        let label = try Registry.withCurrent(traitAppRegistry) { try Reminder().$clock.value().label }
        #expect(label == "app")
        #expect(traitAppRegistry.entries.count == 2)
    }

    @Test(.registry(strict: true) { $0.register((any TraitClock).self) { _ in FakeClock(label: "strict") } })
    func aStrictRegistryFailsTheTestOnAnUnregisteredRead() throws {
        #expect(try Reminder().$clock.value().label == "strict")
        withKnownIssue {
            // Nothing registered for it in the test: an issue, then the
            // Optional's fallback, not the app's greeter.
            #expect(Reminder().optionalGreeter == nil)
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("Reminder.optionalGreeter") && text.contains("TraitGreeter")
        }
        withKnownIssue {
            #expect(throws: SpellError.self) { try Reminder().$greeter.value() }
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("Reminder.greeter")
        }
    }

    @Test func aStrictRegistryDoesNotFallThroughToShared() {
        let trait = RegistryTrait.registry(strict: true)
        #expect(trait.strict)
        #expect(trait.makeRegistry().base == nil)
        #expect(RegistryTrait.registry().makeRegistry().base === Registry.shared)
        #expect(RegistryTrait.registry(over: traitAppRegistry).makeRegistry().base === traitAppRegistry)
    }
}
