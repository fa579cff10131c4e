import BloodMagic
import Synchronization
import Testing

// Issue 29, decorators: wrap or replace a type's values after they are
// made, in registration order, each listed with its source.

private final class Tagged: Sendable {
    let tags: [String]
    init(_ tags: [String]) { self.tags = tags }
}

private final class HoldsTagged {
    @Injectable var tagged: Tagged
}

private final class Counter: Sendable {
    let count = Atomic<Int>(0)
}

@Suite struct RegistryDecoratorTests {
    @Test func decoratorsRunInRegistrationOrderOnEachMadeValue() throws {
        let registry = Registry()
        registry.register(Tagged.self) { _ in Tagged(["made"]) }
        registry.decorate(Tagged.self) { value, _ in Tagged(value.tags + ["first"]) }
        registry.decorate(Tagged.self) { value, sender in Tagged(value.tags + ["second by \(type(of: sender))"]) }
        let holder = Registry.withCurrent(registry) { HoldsTagged() }
        #expect(holder.tagged.tags == ["made", "first", "second by HoldsTagged"])
        #expect(try registry.resolve(Tagged.self, for: holder, property: "x").tags.count == 3)
    }

    /// A singleton is decorated once, when it is made; one made before the
    /// decorator keeps its value; unregistering the decorator stops it.
    @Test func aSingletonIsDecoratedOnce() throws {
        let registry = Registry()
        let runs = Counter()
        registry.register(Tagged.self, scope: .singleton) { _ in Tagged(["made"]) }
        let decorator = registry.decorate(Tagged.self) { value, _ in
            runs.count.add(1, ordering: .relaxed)
            return Tagged(value.tags + ["decorated"])
        }
        let one = Registry.withCurrent(registry) { HoldsTagged() }
        let two = Registry.withCurrent(registry) { HoldsTagged() }
        #expect(one.tagged === two.tagged)
        #expect(one.tagged.tags == ["made", "decorated"])
        #expect(runs.count.load(ordering: .relaxed) == 1)
        // The slot is shared with the undecorated registration: typed reads
        // after the decorator goes see the same (decorated) singleton.
        #expect(registry.unregister(decorator))
        let three = Registry.withCurrent(registry) { HoldsTagged() }
        #expect(three.tagged === one.tagged)
    }

    @Test func aDecoratorErrorOrWrongTypeIsTheReadsError() {
        let registry = Registry()
        registry.register(Tagged.self) { _ in Tagged([]) }
        registry.registerDecorator(type: SpellTypeKey(Tagged.self), source: "deco.lua:4") { _, _ in "not tagged" }
        let holder = Registry.withCurrent(registry) { HoldsTagged() }
        expectSpellError(containing: "expected Tagged") { try holder.$tagged.value() }
    }

    @Test func explainAndEntriesListDecoratorsWithTheirSources() {
        let registry = Registry()
        registry.register(Tagged.self) { _ in Tagged([]) }
        registry.decorate(Tagged.self, fileID: "App/Log.swift", line: 3) { value, _ in value }
        registry.decorate(Tagged.self, fileID: "App/Metrics.swift", line: 8) { value, _ in value }
        let explanation = registry.explain(SpellTypeKey(Tagged.self), in: nil)
        #expect(explanation.decorators.map(\.source) == ["App/Log.swift:3", "App/Metrics.swift:8"])
        #expect(explanation.description.contains(
            "decorators, in the order they run:\n  decorator for Tagged at App/Log.swift:3\n  decorator for Tagged at App/Metrics.swift:8"))
        #expect(registry.entries.filter { $0.kind == .decorator }.count == 2)
        #expect(registry.decorators(of: SpellTypeKey(Tagged.self)).count == 2)
    }

    /// An undecorated type keeps its typed fast path; a decorator for
    /// another type does not touch it.
    @Test func otherTypesAreNotDecorated() throws {
        let registry = Registry()
        registry.register(RequestManager.self) { _ in RequestManager(label: "plain") }
        registry.decorate(Tagged.self) { _, _ in Tagged(["x"]) }
        #expect(try registry.resolve(RequestManager.self, for: HoldsTagged(), property: "m").label == "plain")
    }
}
