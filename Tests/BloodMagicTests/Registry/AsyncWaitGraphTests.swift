import BloodMagic
import Synchronization
import Testing

// Issue 30: a dependency cycle between async initializers running in
// different tasks (A's initializer awaits B while another task's B awaits
// A) is a `dependencyCycle` error in both tasks, not two tasks waiting for
// each other forever.

private final class Mill: Sendable {}
private final class Granary: Sendable {}
private final class Bakery: Sendable {}

/// A flag a task raises and others wait for (polling: the test's tasks may
/// not block a thread of the cooperative pool).
private final class Flag: Sendable {
    let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .releasing) }
    func wait() async throws {
        while !raised.load(ordering: .acquiring) {
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

private final class Runs: Sendable {
    let count = Atomic<Int>(0)
}

/// Runs `body` with a deadline: a hang fails the test instead of hanging the suite.
private func withinSeconds<T: Sendable>(_ seconds: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        guard let first = try await group.next(), let value = first else {
            group.cancelAll()
            throw CancellationError()
        }
        group.cancelAll()
        return value
    }
}

/// What resolving `type` threw, as a cycle's chain (nil: something else, or nothing).
private func cycleChain<T>(_ registry: Registry, _ type: T.Type) async -> [String]? {
    do {
        _ = try await registry.resolve(type)
        return nil
    } catch {
        guard case .dependencyCycle(let chain) = error as? SpellError else { return nil }
        return chain
    }
}

/// Resolves each of `types` in a task of its own, at once; what each threw
/// as a cycle's chain, in order. Child tasks: a deadline cancels them.
private func resolveAtOnce(_ registry: Registry, _ types: [any Sendable.Type]) async -> [[String]?] {
    await withTaskGroup(of: (Int, [String]?).self) { group in
        for (index, type) in types.enumerated() {
            group.addTask { (index, await cycleChain(registry, type)) }
        }
        var chains = [[String]?](repeating: nil, count: types.count)
        for await (index, chain) in group { chains[index] = chain }
        return chains
    }
}

@Suite struct AsyncWaitGraphTests {
    @Test func twoTasksMakingValuesThatAwaitEachOtherGetACycleNotAHang() async throws {
        let registry = Registry()
        let millStarted = Flag()
        let granaryStarted = Flag()
        registry.registerAsync(Mill.self) {
            millStarted.raise()
            try await granaryStarted.wait()
            _ = try await registry.resolve(Granary.self)
            return Mill()
        }
        registry.registerAsync(Granary.self) {
            granaryStarted.raise()
            try await millStarted.wait()
            _ = try await registry.resolve(Mill.self)
            return Granary()
        }
        let chains = try await withinSeconds(10) { await resolveAtOnce(registry, [Mill.self, Granary.self]) }
        // Whichever task waited second found the loop; the other got it
        // through the making it waited for.
        let loops: Set<[String]> = [
            ["Mill (singleton)", "Granary (singleton)", "Mill (singleton)"],
            ["Granary (singleton)", "Mill (singleton)", "Granary (singleton)"],
        ]
        #expect(chains[0].map { loops.contains($0) } == true, "\(chains)")
        #expect(chains[1].map { loops.contains($0) } == true, "\(chains)")
        #expect(chains[0] == chains[1])
    }

    @Test func aLoopThroughThreeTasksIsFoundToo() async throws {
        let registry = Registry()
        let started = (Flag(), Flag(), Flag())
        registry.registerAsync(Mill.self) {
            started.0.raise()
            try await started.1.wait()
            _ = try await registry.resolve(Granary.self)
            return Mill()
        }
        registry.registerAsync(Granary.self) {
            started.1.raise()
            try await started.2.wait()
            _ = try await registry.resolve(Bakery.self)
            return Granary()
        }
        registry.registerAsync(Bakery.self) {
            started.2.raise()
            try await started.0.wait()
            _ = try await registry.resolve(Mill.self)
            return Bakery()
        }
        let chains = try await withinSeconds(10) {
            await resolveAtOnce(registry, [Mill.self, Granary.self, Bakery.self])
        }
        for chain in chains {
            #expect(chain?.count == 4, "\(chains)")
            #expect(chain.map { Set($0) } == ["Mill (singleton)", "Granary (singleton)", "Bakery (singleton)"])
        }
    }

    /// Tasks that wait for each other's values without a loop are not a cycle.
    @Test func eightTasksWaitingOnAChainOfMakingsIsNoCycle() async throws {
        let registry = Registry()
        let runs = Runs()
        registry.registerAsync(Granary.self) {
            runs.count.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(30))
            return Granary()
        }
        registry.registerAsync(Mill.self) {
            runs.count.add(1, ordering: .relaxed)
            _ = try await registry.resolve(Granary.self)
            return Mill()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        _ = try await registry.resolve(Mill.self)
                    } else {
                        _ = try await registry.resolve(Granary.self)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(runs.count.load(ordering: .relaxed) == 2)
    }
}
