import BloodMagic
import Testing

private class BaseController {
    @Injectable var manager: RequestManager
    @Injectable var client: any RequestClient
    @Injectable var optionalManager: RequestManager?
}

private final class DerivedController: BaseController {}

private final class OtherController {
    @Injectable var manager: RequestManager
}

private final class UsersViewController {}

private class Grandparent {
    @Injectable var manager: RequestManager
}
private class Parent: Grandparent {}
private final class Child: Parent {}

@Suite struct RegistryLookupTests {
    @Test func aProtocolTypedPropertyGetsTheProtocolInitializer() throws {
        let registry = Registry()
        registry.register(HTTPClient.self) { _ in HTTPClient(label: "concrete") }
        registry.register((any RequestClient).self) { _ in HTTPClient(label: "protocol") }
        registry.register((any RequestClient & Cancellable).self) { _ in HTTPClient(label: "pair") }
        let controller = Registry.withCurrent(registry) { BaseController() }
        let client = try Registry.withCurrent(registry) { try controller.$client.value() }
        #expect(client.label == "protocol")
    }

    @Test func aBaseOnlyRegistrationDoesNotApplyToADerivedContainer() throws {
        let registry = Registry()
        registry.register(RequestManager.self, container: BaseController.self) { _ in RequestManager(label: "base") }
        try Registry.withCurrent(registry) { () throws in
            #expect(try BaseController().$manager.value().label == "base")
            #expect(throws: SpellError.self) { try DerivedController().$manager.value() }
        }
    }

    @Test func subclassesOptInExplicitlyAndAnExactMatchStillWins() throws {
        let registry = Registry()
        registry.register(RequestManager.self, container: BaseController.self, includingSubclasses: true) { _ in
            RequestManager(label: "base and subclasses")
        }
        try Registry.withCurrent(registry) { () throws in
            #expect(try DerivedController().$manager.value().label == "base and subclasses")
            registry.register(RequestManager.self, container: DerivedController.self) { _ in RequestManager(label: "derived") }
            #expect(try DerivedController().$manager.value().label == "derived")
            #expect(try BaseController().$manager.value().label == "base and subclasses")
        }
    }

    @Test func aWildcardInitializerAppliesEverywhereButLosesToAContainerSpecificOne() throws {
        let registry = Registry()
        registry.register(RequestManager.self, container: OtherController.self) { _ in RequestManager(label: "other") }
        registry.register(RequestManager.self) { _ in RequestManager(label: "anywhere") }
        try Registry.withCurrent(registry) { () throws in
            #expect(try BaseController().$manager.value().label == "anywhere")
            #expect(try DerivedController().$manager.value().label == "anywhere")
            #expect(try OtherController().$manager.value().label == "other")
        }
    }

    @Test func theSenderIsTheOwningObject() throws {
        let registry = Registry()
        registry.register(RequestManager.self, container: OtherController.self) { sender in
            RequestManager(label: "\(ObjectIdentifier(sender).hashValue)")
        }
        let controller = OtherController()
        let manager = try Registry.withCurrent(registry) { try controller.$manager.value() }
        #expect(manager.label == "\(ObjectIdentifier(controller).hashValue)")
    }

    @Test func twoEquallySpecificRegistrationsPickTheLaterAndRecordADiagnostic() throws {
        let registry = Registry()
        registry.register(RequestManager.self) { _ in RequestManager(label: "first") }
        #expect(registry.diagnostics.isEmpty)
        registry.register(RequestManager.self) { _ in RequestManager(label: "second") }
        let manager = try Registry.withCurrent(registry) { try OtherController().$manager.value() }
        #expect(manager.label == "second")
        let diagnostics = registry.diagnostics
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.message.contains("RequestManager in any container registered at BloodMagicTests/RegistryLookupTests.swift:") == true)
        #expect(diagnostics.first?.message.contains("(the later wins)") == true)
    }

    @Test func injectableErrorNamesPropertyContainerTypeAndClosestRegistrations() throws {
        let registry = Registry()
        let line = #line + 1
        registry.register(RequestManager.self, container: UsersViewController.self) { _ in RequestManager() }
        let error = #expect(throws: SpellError.self) {
            try Registry.withCurrent(registry) { try OtherController().$manager.value() }
        }
        #expect(error?.description == "OtherController.manager: no initializer for RequestManager in OtherController (closest: RequestManager in UsersViewController, BloodMagicTests/RegistryLookupTests.swift:\(line))")
    }

    @Test func injectableErrorWithNothingRegistered() {
        let error = #expect(throws: SpellError.self) {
            try Registry.withCurrent(Registry()) { try OtherController().$manager.value() }
        }
        #expect(error?.description == "OtherController.manager: no initializer for RequestManager in OtherController (no registrations for RequestManager)")
    }

    @Test func anOptionalInjectableReadsNilWithoutAnInitializer() throws {
        let registry = Registry()
        let controller = BaseController()
        try Registry.withCurrent(registry) { () throws in
            #expect(controller.optionalManager == nil)
            registry.register(RequestManager.self) { _ in RequestManager(label: "late") }
            #expect(try controller.$optionalManager.value()?.label == "late")
        }
    }

    @Test func registeringAfterFirstUseAffectsOnlyUnresolvedProperties() throws {
        let registry = Registry()
        registry.register(RequestManager.self) { _ in RequestManager(label: "one") }
        try Registry.withCurrent(registry) { () throws in
            let resolved = OtherController()
            #expect(resolved.manager.label == "one")
            registry.register(RequestManager.self, container: OtherController.self) { _ in RequestManager(label: "two") }
            #expect(resolved.manager.label == "one")
            #expect(try OtherController().$manager.value().label == "two")
        }
    }

    @Test func unregisteringInvalidatesCachedLookups() throws {
        let registry = Registry()
        let general = registry.register(RequestManager.self) { _ in RequestManager(label: "general") }
        let specific = registry.register(RequestManager.self, container: OtherController.self) { _ in RequestManager(label: "specific") }
        try Registry.withCurrent(registry) { () throws in
            #expect(try OtherController().$manager.value().label == "specific")
            #expect(registry.unregisterInitializer(specific))
            #expect(!registry.unregisterInitializer(specific))
            #expect(try OtherController().$manager.value().label == "general")
            #expect(registry.unregisterInitializer(general))
            #expect(throws: SpellError.self) { try OtherController().$manager.value() }
        }
    }

    @Test func unregisterInitializerLeavesOtherKindsOfRegistrationAlone() {
        let registry = Registry()
        let initializer = registry.register(RequestManager.self) { _ in RequestManager() }
        let hook = registry.addHook(property: "manager", source: "here") { _, _, _ in }
        #expect(!registry.unregisterInitializer(hook))
        #expect(registry.entries.map(\.handle) == [initializer, hook])
        #expect(registry.unregisterInitializer(initializer))
        #expect(registry.entries.map(\.handle) == [hook])
        #expect(registry.unregister(hook))
        #expect(registry.entries.isEmpty)
    }

    @Test func askingForAnEntryByNameDoesNotChangeWhatAnObjectResolvesTo() throws {
        // A descriptor with a name only cannot show that Child is a
        // Grandparent, so a tool asking that way finds nothing; the answer
        // must not be remembered for the (type, container name) pair, which
        // a real Child, whose class chain is known, resolves through.
        let registry = Registry()
        registry.register(RequestManager.self, container: Grandparent.self, includingSubclasses: true) { _ in
            RequestManager(label: "kind of")
        }
        let byName = ContainerDescriptor(object: nil, key: SpellTypeKey(Child.self))
        #expect(registry.initializerEntry(for: SpellTypeKey(RequestManager.self), in: byName) == nil)
        let child = Registry.withCurrent(registry) { Child() }
        let value = try registry.resolveIfRegistered(
            type: SpellTypeKey(RequestManager.self), container: ContainerDescriptor(child), property: "manager")
        #expect((value as? RequestManager)?.label == "kind of")
    }

    @Test func removeAllDropsEveryRegistration() {
        let registry = Registry()
        registry.register(RequestManager.self) { _ in RequestManager() }
        registry.addHook(property: "manager", source: "here") { _, _, _ in }
        #expect(registry.entries.count == 2)
        registry.removeAll()
        #expect(registry.entries.isEmpty)
        #expect(throws: SpellError.self) {
            try Registry.withCurrent(registry) { try OtherController().$manager.value() }
        }
    }

    @Test func entriesDescribeEachRegistrationForTools() {
        let registry = Registry()
        let line = #line + 1
        registry.register(RequestManager.self, container: UsersViewController.self, scope: .singleton) { _ in RequestManager() }
        registry.registerInitializer(type: SpellTypeKey(protocols: ["Client"]), source: "init/loaders.lua:4") { _ in HTTPClient(label: "lua") }
        registry.addHook(container: .exactly(SpellTypeKey(name: "ViewController")), property: "loader", source: "hooks.lua:2") { _, _, _ in }
        let entries = registry.entries
        #expect(entries.count == 3)
        #expect(entries[0].kind == .singleton)
        #expect(entries[0].type == SpellTypeKey(RequestManager.self))
        #expect(entries[0].container.key == SpellTypeKey(UsersViewController.self))
        #expect(entries[0].container.key?.name == "UsersViewController")
        #expect(entries[0].scope == .singleton)
        #expect(entries[0].source == "BloodMagicTests/RegistryLookupTests.swift:\(line)")
        #expect(entries[1].description == "initializer any Client in any container (instance) at init/loaders.lua:4")
        #expect(entries[2].description == "hook .loader in ViewController at hooks.lua:2")
    }

    @Test func theNameBasedEntryPointServesBridgeContainersWithAncestry() throws {
        let registry = Registry()
        registry.registerInitializer(type: SpellTypeKey(name: "RequestManager"), container: .kindOf(SpellTypeKey(name: "LuaBase")), source: "a.lua:1") { _ in
            RequestManager(label: "lua base")
        }
        let sender = OtherController()
        let child = ContainerDescriptor(object: sender, key: SpellTypeKey(name: "LuaChild"), ancestry: [SpellTypeKey(name: "LuaBase")])
        let value = try registry.resolve(type: SpellTypeKey(name: "RequestManager"), container: child, property: "manager")
        #expect((value as? RequestManager)?.label == "lua base")
        let stranger = ContainerDescriptor(object: sender, key: SpellTypeKey(name: "LuaOther"), ancestry: [])
        #expect(try registry.resolveIfRegistered(type: SpellTypeKey(name: "RequestManager"), container: stranger, property: "manager") == nil)
        let error = #expect(throws: SpellError.self) {
            try registry.resolve(type: SpellTypeKey(name: "RequestManager"), container: stranger, property: "manager")
        }
        #expect(error?.description == "LuaOther.manager: no initializer for RequestManager in LuaOther (closest: RequestManager in LuaBase and subclasses, a.lua:1)")
    }

    @Test func theNearestAncestorOptInWinsRegardlessOfOrder() throws {
        let registry = Registry()
        registry.register(RequestManager.self, container: Parent.self, includingSubclasses: true) { _ in RequestManager(label: "parent") }
        registry.register(RequestManager.self, container: Grandparent.self, includingSubclasses: true) { _ in RequestManager(label: "grandparent") }
        try Registry.withCurrent(registry) { () throws in
            #expect(try Child().$manager.value().label == "parent")
            #expect(try Parent().$manager.value().label == "parent")
            #expect(try Grandparent().$manager.value().label == "grandparent")
        }
        #expect(registry.diagnostics.isEmpty)
    }
}
