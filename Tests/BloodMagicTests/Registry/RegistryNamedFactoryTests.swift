import BloodMagic
import Testing

// Issue 29, names and arguments together: `registerFactory(_:named:arguments:)`
// declares the factory of the registrations of a type under a name (a
// script's `name = "primary", arguments = { ... }`, here the erased form a
// script bridge uses), which a property asking for that name gets.

private final class Report: Sendable {
    let id: Int
    let source: String
    init(id: Int, source: String) {
        self.id = id
        self.source = source
    }
}

private final class ReportScreen {
    @Injectable(named: "primary") var makePrimary: (Int) throws -> Report
    @Injectable(named: "replica") var makeReplica: (Int) throws -> Report
    @Injectable(named: "primary") var makePair: (Int, Int) throws -> Report
}

/// Registers the erased initializer of `Report` under `name`, taking `names`.
private func registerReport(_ registry: Registry, name: String, names: [String], line: Int) {
    registry.registerInitializer(
        type: SpellTypeKey(Report.self), name: name, source: "wiring.lua:\(line)", argumentNames: names
    ) { _, values in
        Report(id: values.compactMap { $0 as? Int }.reduce(0, +), source: name)
    }
}

@Suite struct RegistryNamedFactoryTests {
    @Test func aNamedFactoryResolvesTheRegistrationUnderItsName() throws {
        let registry = Registry()
        registerReport(registry, name: "primary", names: ["id"], line: 1)
        registerReport(registry, name: "replica", names: ["id"], line: 2)
        registry.registerFactory(Report.self, named: "primary", arguments: Int.self)
        registry.registerFactory(Report.self, named: "replica", arguments: Int.self)
        let screen = Registry.withCurrent(registry) { ReportScreen() }
        let primary = try screen.makePrimary(7)
        #expect(primary.id == 7 && primary.source == "primary")
        #expect(try screen.makeReplica(8).source == "replica")
    }

    /// The factory's count against the named registration's: both sides named.
    @Test func aNamedFactoryOfAnotherCountNamesBothSides() throws {
        let registry = Registry()
        registerReport(registry, name: "primary", names: ["id"], line: 1)
        registry.registerFactory(Report.self, named: "primary", arguments: Int.self, Int.self)
        let screen = Registry.withCurrent(registry) { ReportScreen() }
        #expect(throws: SpellError.argumentMismatch(type: "Report", source: "wiring.lua:1", expected: ["id"], given: ["Int", "Int"])) {
            try screen.makePair(1, 2)
        }
    }

    /// Nothing under the name: the unknown-name error, listing the names that are.
    @Test func aNamedFactoryWithNothingUnderItsNameListsTheNames() throws {
        let registry = Registry()
        registerReport(registry, name: "primary", names: ["id"], line: 1)
        registry.registerFactory(Report.self, named: "replica", arguments: Int.self)
        let screen = Registry.withCurrent(registry) { ReportScreen() }
        do {
            _ = try screen.makeReplica(1)
            Issue.record("expected an error")
        } catch let error as SpellError {
            guard case .unknownName(_, _, let type, let name, let known) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(type == "Report" && name == "replica" && known == ["primary"])
        }
    }

    /// The factory is registered under the name: an unnamed property of the
    /// factory's type is not served by it.
    @Test func aNamedFactoryServesOnlyItsName() throws {
        let registry = Registry()
        registry.registerFactory(Report.self, named: "primary", arguments: Int.self)
        #expect(registry.entries.contains { $0.name == "primary" && $0.type?.name == "(Int) throws -> Report" },
            "\(registry.entries.map { "\($0.type?.name ?? "-") \($0.name ?? "-")" })")
        #expect(throws: SpellError.self) { try registry.resolveValue(((Int) throws -> Report).self) }
    }
}
