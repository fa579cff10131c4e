import BloodMagic
import Testing

// Issue 29, runtime arguments: typed at registration and at resolution, a
// mismatch names both sides, and a property may hold the factory.

private final class DetailModel: Sendable {
    let id: Int
    let title: String
    init(id: Int, title: String = "") {
        self.id = id
        self.title = title
    }
}

private final class ListScreen {
    @Injectable var makeDetail: (Int) throws -> DetailModel
    @Injectable var makeTitled: (Int, String) throws -> DetailModel
    @Injectable var plain: DetailModel
}

@Suite struct RegistryArgumentsTests {
    @Test func typedArgumentsAtRegistrationAndResolution() throws {
        let registry = Registry()
        registry.register(DetailModel.self, arguments: Int.self) { _, id in DetailModel(id: id) }
        #expect(try registry.resolve(DetailModel.self, arguments: 42).id == 42)
        let other = Registry()
        other.register(DetailModel.self, arguments: Int.self, String.self) { _, id, title in DetailModel(id: id, title: title) }
        let made = try other.resolve(DetailModel.self, arguments: 7, "seven")
        #expect(made.id == 7 && made.title == "seven")
    }

    @Test func aMismatchInCountOrTypeNamesBothSides() {
        let registry = Registry()
        registry.register(DetailModel.self, arguments: Int.self, fileID: "App/Wiring.swift", line: 4) { _, id in DetailModel(id: id) }
        #expect(throws: SpellError.argumentMismatch(
            type: "DetailModel", source: "App/Wiring.swift:4", expected: ["Int"], given: ["String"])
        ) { try registry.resolve(DetailModel.self, arguments: "42") }
        #expect(throws: SpellError.argumentMismatch(
            type: "DetailModel", source: "App/Wiring.swift:4", expected: ["Int"], given: ["Int", "Int"])
        ) { try registry.resolve(DetailModel.self, arguments: 1, 2) }
        let message = SpellError.argumentMismatch(type: "DetailModel", source: "App/Wiring.swift:4", expected: ["Int"], given: ["String"])
        #expect(message.description
            == "App/Wiring.swift:4: the initializer for DetailModel takes arguments (Int), but it was resolved with (String)")
        // A property without arguments: the mismatch says how to get one.
        let screen = Registry.withCurrent(registry) { ListScreen() }
        #expect(throws: SpellError.argumentMismatch(
            type: "DetailModel", source: "App/Wiring.swift:4", expected: ["Int"], given: [])) { try screen.$plain.value() }
        // A registration without arguments resolved with some.
        let plain = Registry()
        plain.register(DetailModel.self, fileID: "App/Plain.swift", line: 2) { _ in DetailModel(id: 0) }
        #expect(throws: SpellError.argumentMismatch(
            type: "DetailModel", source: "App/Plain.swift:2", expected: [], given: ["Int"])
        ) { try plain.resolve(DetailModel.self, arguments: 3) }
    }

    /// A property holds the factory: the container calls it, never the registry.
    @Test func aPropertyHoldsTheFactory() throws {
        let registry = Registry()
        registry.register(DetailModel.self, arguments: Int.self) { sender, id in
            DetailModel(id: id, title: "\(type(of: sender))")
        }
        let screen = Registry.withCurrent(registry) { ListScreen() }
        let first = try screen.makeDetail(1)
        let second = try screen.makeDetail(2)
        #expect(first.id == 1 && second.id == 2 && first !== second)
        #expect(first.title == "ListScreen")
        // One registration per type (and name): the other arity in another registry.
        let titled = Registry()
        titled.register(DetailModel.self, arguments: Int.self, String.self) { _, id, title in DetailModel(id: id, title: title) }
        let other = Registry.withCurrent(titled) { ListScreen() }
        #expect(try other.makeTitled(3, "three").title == "three")
        // The factory resolves when called: a registration made later serves it.
        registry.register(DetailModel.self, arguments: Int.self) { _, id in DetailModel(id: id * 10) }
        #expect(try screen.makeDetail(4).id == 40)
    }

    @Test func entriesExplainAndDecoratorsKnowTheArguments() throws {
        let registry = Registry()
        let handle = registry.register(DetailModel.self, arguments: Int.self) { _, id in DetailModel(id: id) }
        registry.decorate(DetailModel.self) { model, _ in DetailModel(id: model.id + 1) }
        #expect(try registry.resolve(DetailModel.self, arguments: 1).id == 2)
        let entry = try #require(registry.entries.first { $0.handle == handle })
        #expect(entry.arguments == ["Int"])
        #expect(entry.description.contains("DetailModel taking (Int) in any container"))
        #expect(registry.explain(SpellTypeKey(DetailModel.self), in: nil).description.contains("initializer DetailModel taking (Int) in any container"))
        // The factory registration goes with it.
        #expect(registry.entries.count == 3)
        registry.unregister(handle)
        #expect(registry.entries.count == 1)
    }
}
