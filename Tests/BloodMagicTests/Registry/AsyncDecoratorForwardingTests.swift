@_spi(BloodMagicInternals) import BloodMagic
import Synchronization
import Testing
import TestSupport

// Issues 29 and 30: async registrations can be decorated (their values,
// once made) and forwarded (one async singleton serving several types as
// one object, made once however many tasks ask for whichever type).

private protocol Catalog: AnyObject, Sendable {}
private protocol SearchIndex: AnyObject, Sendable {}

private final class Shelf: Catalog, SearchIndex, Sendable {
    let attempt: Int
    /// What the decorators did to it, in order.
    let marks: [String]
    init(attempt: Int, marks: [String] = []) {
        self.attempt = attempt
        self.marks = marks
    }

    func marked(_ mark: String) -> Shelf { Shelf(attempt: attempt, marks: marks + [mark]) }
}

private final class ShelfScreen {
    @Injectable var shelf: Shelf
    @Injectable var catalog: any Catalog

    init(_ registry: Registry) {
        _shelf = Injectable(registry: registry)
        _catalog = Injectable(registry: registry)
    }
}

/// Counts the initializer's runs.
private typealias Count = CallCounter

/// An async singleton that takes a while to make (so that asks overlap).
@discardableResult
private func registerSlowShelf(_ registry: Registry, _ runs: Count, implements: [Any.Type] = []) -> SpellHandle {
    registry.registerAsync(Shelf.self, implements: implements) {
        let attempt = runs.increment()
        try await Task.sleep(for: .milliseconds(40))
        return Shelf(attempt: attempt)
    }
}

/// Resolves `ask(index)` in 8 tasks at once; the identities of the values.
private func eightTasks(_ ask: @escaping @Sendable (Int) async throws -> AnyObject) async throws -> Set<ObjectIdentifier> {
    try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
        for index in 0..<8 {
            group.addTask { ObjectIdentifier(try await ask(index)) }
        }
        return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
    }
}

@Suite struct AsyncDecoratorForwardingTests {
    // MARK: Decorators

    @Test func decoratorsWrapAnAsyncSingletonOnceInRegistrationOrder() async throws {
        let registry = Registry()
        let runs = Count()
        let decorations = Count()
        registerSlowShelf(registry, runs)
        registry.decorate(Shelf.self) { shelf, _ in
            _ = decorations.increment()
            return shelf.marked("first")
        }
        registry.decorate(Shelf.self) { shelf, _ in shelf.marked("second") }
        let made = try await eightTasks { _ in try await registry.resolve(Shelf.self) }
        #expect(made.count == 1)
        #expect(runs.value == 1)
        #expect(decorations.value == 1)
        let shelf = try await registry.resolve(Shelf.self)
        #expect(shelf.marks == ["first", "second"])
        // Synchronous reads see the decorated value.
        #expect(ShelfScreen(registry).shelf === shelf)
    }

    @Test func aPropertysAsyncValueAndPrepareAreDecoratedToo() async throws {
        let registry = Registry()
        registerSlowShelf(registry, Count())
        registry.decorate(Shelf.self) { shelf, _ in shelf.marked("decorated") }
        #expect(try await ShelfScreen(registry).$shelf.asyncValue().marks == ["decorated"])

        let prepared = Registry()
        registerSlowShelf(prepared, Count())
        prepared.decorate(Shelf.self) { shelf, _ in shelf.marked("decorated") }
        try await prepared.prepare()
        #expect(ShelfScreen(prepared).shelf.marks == ["decorated"])
    }

    @Test func anInstanceScopedAsyncValueIsDecoratedEachTime() async throws {
        let registry = Registry()
        let runs = Count()
        registry.registerAsync(Shelf.self, scope: .instance) { Shelf(attempt: runs.increment()) }
        registry.decorate(Shelf.self) { shelf, _ in shelf.marked("decorated") }
        let one = try await registry.resolve(Shelf.self)
        let other = try await registry.resolve(Shelf.self)
        #expect([one.attempt, other.attempt] == [1, 2])
        #expect(one.marks == ["decorated"] && other.marks == ["decorated"])
    }

    @Test func anIsolatedSingletonIsDecoratedAfterItIsMade() async throws {
        let registry = Registry()
        registry.registerIsolated(Shelf.self, scope: .singleton) { @LedgerActor in
            LedgerActor.preconditionIsolated()
            return Shelf(attempt: 1)
        }
        registry.decorate(Shelf.self) { shelf, _ in shelf.marked("decorated") }
        let shelf = try await Task.detached { try await registry.resolve(Shelf.self) }.value
        #expect(shelf.marks == ["decorated"])
        #expect(ShelfScreen(registry).shelf === shelf)
    }

    @Test func explainListsTheDecoratorsOfAnAsyncRegistration() {
        let registry = Registry()
        registerSlowShelf(registry, Count())
        registry.decorate(Shelf.self) { shelf, _ in shelf }
        let explanation = registry.explain(SpellTypeKey(Shelf.self), in: nil).description
        #expect(explanation.contains("wins: the singleton (async) registered at"), "\(explanation)")
        #expect(explanation.contains("decorators, in the order they run:\n  decorator for Shelf at BloodMagicTests/AsyncDecoratorForwardingTests.swift:"), "\(explanation)")
    }

    // MARK: Forwarding

    @Test func oneAsyncSingletonServesSeveralTypesMadeOnceUnderEightTasks() async throws {
        let registry = Registry()
        let runs = Count()
        registerSlowShelf(registry, runs, implements: [(any Catalog).self, (any SearchIndex).self])
        let made = try await eightTasks { index -> AnyObject in
            switch index % 3 {
            case 0: try await registry.resolve(Shelf.self)
            case 1: try await registry.resolve((any Catalog).self)
            default: try await registry.resolve((any SearchIndex).self)
            }
        }
        #expect(made.count == 1)
        #expect(runs.value == 1)
        // Made: every type reads it synchronously too.
        let screen = ShelfScreen(registry)
        #expect(ObjectIdentifier(screen.catalog) == made.first)
        #expect(ObjectIdentifier(screen.shelf) == made.first)
    }

    @Test func aForwardedTypeIsReadWithAwaitThroughAProperty() async throws {
        let registry = Registry()
        let runs = Count()
        let handle = registerSlowShelf(registry, runs)
        registry.forward((any Catalog).self, to: handle)
        let screen = ShelfScreen(registry)
        // Not made yet: a synchronous read of the forwarded type says so.
        #expect(throws: SpellError.self) { try screen.$catalog.value() }
        let catalog = try await screen.$catalog.asyncValue()
        #expect(catalog === (try await registry.resolve(Shelf.self)))
        #expect(runs.value == 1)
    }

    @Test func entriesSayAForwardingToAnAsyncRegistrationIsAsync() {
        let registry = Registry()
        registerSlowShelf(registry, Count(), implements: [(any Catalog).self])
        let forwarding = registry.entries.first { $0.type == SpellTypeKey((any Catalog).self) }
        #expect(forwarding?.isAsync == true)
        #expect(forwarding?.description.contains("async") == true)
        let explanation = registry.explain(SpellTypeKey((any Catalog).self), in: nil).description
        #expect(explanation.contains("(async)"), "\(explanation)")
        #expect(explanation.contains("forwarding to Shelf registered at"), "\(explanation)")
    }
}

extension AsyncDecoratorForwardingTests {
    @Test func aForwardedTypeAskedFirstMakesTheSingletonDecorated() async throws {
        let registry = Registry()
        registerSlowShelf(registry, Count(), implements: [(any Catalog).self])
        registry.decorate(Shelf.self) { shelf, _ in shelf.marked("decorated") }
        let catalog = try await registry.resolve((any Catalog).self)
        let shelf = try await registry.resolve(Shelf.self)
        #expect(catalog === shelf)
        #expect(shelf.marks == ["decorated"])
    }
}
