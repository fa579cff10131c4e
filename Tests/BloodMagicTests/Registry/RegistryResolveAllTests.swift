import BloodMagic
import Synchronization
import Testing

// Issue 29, many-of: registry.resolveAll(T.self), in registration order.

private protocol Plugin: AnyObject { var label: String { get } }
private final class NamedPlugin: Plugin {
    let label: String
    init(_ label: String) { self.label = label }
}
private final class PluginHost {}
private final class OtherHost {}

@Suite struct RegistryResolveAllTests {
    @Test func everyRegistrationInRegistrationOrder() throws {
        let registry = Registry()
        registry.register((any Plugin).self, named: "search") { _ in NamedPlugin("search") }
        registry.register((any Plugin).self) { _ in NamedPlugin("plain") }
        registry.register((any Plugin).self, named: "export", scope: .singleton) { _ in NamedPlugin("export") }
        let all = try registry.resolveAll((any Plugin).self)
        #expect(all.map(\.label) == ["search", "plain", "export"])
        // Singletons are honoured: the same object twice.
        let again = try registry.resolveAll((any Plugin).self)
        #expect(again[2] === all[2])
        #expect(again[0] !== all[0])
    }

    @Test func nothingRegisteredIsEmptyAndOtherTypesAreLeftOut() throws {
        let registry = Registry()
        registry.register(RequestManager.self) { _ in RequestManager(label: "x") }
        #expect(try registry.resolveAll((any Plugin).self).isEmpty)
    }

    /// With a sender, only registrations applying to its container run.
    @Test func onlyRegistrationsForTheSendersContainer() throws {
        let registry = Registry()
        registry.register((any Plugin).self) { _ in NamedPlugin("any") }
        registry.register((any Plugin).self, container: PluginHost.self) { _ in NamedPlugin("host") }
        registry.register((any Plugin).self, container: OtherHost.self) { _ in NamedPlugin("other") }
        #expect(try registry.resolveAll((any Plugin).self, for: PluginHost()).map(\.label) == ["any", "host"])
        #expect(try registry.resolveAll((any Plugin).self).map(\.label) == ["any"])
        let entries = registry.allRegistrations(
            of: SpellTypeKey((any Plugin).self), in: ContainerDescriptor(object: nil, key: SpellTypeKey(OtherHost.self)))
        #expect(entries.count == 2)
    }

    @Test func anInitializerErrorOrAWrongTypeIsThrown() {
        let registry = Registry()
        registry.registerInitializer(type: SpellTypeKey((any Plugin).self), source: "plugins.lua:3") { _ in "not a plugin" }
        expectSpellError(containing: "plugins.lua:3") { try registry.resolveAll((any Plugin).self) }
    }

    /// Decorators of the type run on each value, as for a single resolution;
    /// a singleton's value is the same object each call.
    @Test func decoratorsApplyToEveryValue() throws {
        let registry = Registry()
        registry.register((any Plugin).self, named: "a") { _ in NamedPlugin("a") }
        registry.register((any Plugin).self, named: "b", scope: .singleton) { _ in NamedPlugin("b") }
        registry.decorate((any Plugin).self) { plugin, _ in NamedPlugin(plugin.label + "+") }
        let all = try registry.resolveAll((any Plugin).self)
        #expect(all.map(\.label) == ["a+", "b+"])
        #expect(try registry.resolveAll((any Plugin).self)[1] === all[1])
    }

    /// A registration made (or removed) between two calls changes the next call.
    @Test func followsRegistrationChanges() throws {
        let registry = Registry()
        let first = registry.register((any Plugin).self, named: "a") { _ in NamedPlugin("a") }
        registry.register((any Plugin).self, named: "b") { _ in NamedPlugin("b") }
        #expect(try registry.resolveAll((any Plugin).self).map(\.label) == ["a", "b"])
        registry.unregister(first)
        registry.register((any Plugin).self, named: "c") { _ in NamedPlugin("c") }
        #expect(try registry.resolveAll((any Plugin).self).map(\.label) == ["b", "c"])
    }
}
