@_spi(BloodMagicInternals) import BloodMagic
import Logging
import Synchronization
import Testing

// Static spelled properties. In the Swift 6 language mode Swift accepts a
// wrapped static property only in a global-actor-isolated type, hence
// @MainActor. Each test has its own type: static state lives for the process.

private let staticRegistry = Registry()
private let staticStore = InMemoryPreferenceStore()
private let staticHookLog = Lock<[String]>([])

@MainActor private final class StaticServices {
    @StaticInjectable(in: StaticServices.self, name: "manager", registry: staticRegistry)
    static var manager: RequestManager
    @StaticInjectable(in: StaticServices.self, name: "log", registry: staticRegistry)
    static var log: Logger
    @StaticInjectable(in: StaticServices.self, name: "maybe", registry: staticRegistry)
    static var maybe: HTTPClient?
    @StaticInjectable(in: StaticServices.self, name: "missing", registry: staticRegistry)
    static var missing: HTTPClient
}

@MainActor private final class StaticLazies {
    @StaticLazy(in: StaticLazies.self, name: "constructed", registry: staticRegistry)
    static var constructed: RequestManager
    @StaticLazy(in: StaticLazies.self, name: "initial", registry: staticRegistry)
    static var initial = RequestManager(label: "initial value")
    @StaticLazy(in: StaticLazies.self, name: "impossible", registry: staticRegistry)
    static var impossible: HTTPClient
}

@MainActor private final class StaticCycle {
    @StaticInjectable(in: StaticCycle.self, name: "client", registry: staticRegistry)
    static var client: any RequestClient
}

@MainActor private final class StaticTyped {
    @StaticInjectable(in: StaticTyped.self, name: "manager", registry: staticRegistry)
    static var manager: RequestManager
}

@MainActor private final class StaticShared {
    @StaticInjectable(in: StaticShared.self, name: "counter", registry: staticRegistry)
    static var counter: CallCounter
}

@MainActor private final class StaticSettings {
    @StaticPreference(in: StaticSettings.self, name: "nickname", store: staticStore, registry: staticRegistry)
    static var nickname: String?
    @StaticPreference(in: StaticSettings.self, name: "volume", key: "explicit.volume", store: staticStore, registry: staticRegistry)
    static var volume = 5
}

private class StaticBase {}
@MainActor private final class StaticDerived: StaticBase {
    @StaticInjectable(in: StaticDerived.self, name: "manager", registry: staticRegistry)
    static var manager: RequestManager
}

@Suite(.serialized) @MainActor struct StaticSpellTests {
    init() {
        staticRegistry.removeAll()
    }

    @Test func anInjectableStaticPropertyIsServedOnceForItsType() throws {
        let senders = Lock<[String]>([])
        staticRegistry.registerInitializer(type: SpellTypeKey(RequestManager.self), container: .exactly(StaticServices.self), source: "test") { sender in
            senders.withLock { $0.append("\(sender)") }
            return RequestManager(label: "for \((sender as? StaticSpellContainer)?.spellContainerName ?? "?")")
        }
        staticRegistry.addHook(container: .exactly(StaticServices.self), property: "manager", source: "test") { sender, property, _ in
            staticHookLog.withLock { $0.append("\(sender).\(property)") }
        }
        let first = StaticServices.manager
        #expect(first.label == "for StaticServices")
        #expect(StaticServices.manager === first)
        #expect(senders.withLock { $0 } == ["static StaticServices"])
        #expect(staticHookLog.withLock { $0 } == ["static StaticServices.manager"])
        #expect(StaticServices.$manager.isResolved)
        let replacement = RequestManager(label: "assigned")
        StaticServices.manager = replacement
        #expect(StaticServices.manager === replacement)
        StaticServices.$manager.reset()
        #expect(StaticServices.manager.label == "for StaticServices")
        #expect(StaticServices.manager !== first)
    }

    @Test func aResolverServesStaticPropertiesWithTheDeclaringType() throws {
        staticRegistry.addResolver(for: Logger.self) { request in Logger(label: "\(request.container.name).\(request.property)") }
        #expect(StaticServices.log.label == "StaticServices.log")
        #expect(StaticServices.maybe == nil)
        let error = #expect(throws: SpellError.self) { try StaticServices.$missing.value() }
        #expect(error?.description == "StaticServices.missing: no initializer for HTTPClient in StaticServices (no registrations for HTTPClient)")
        staticRegistry.register(HTTPClient.self) { _ in HTTPClient(label: "late") }
        #expect(StaticServices.maybe?.label == "late")   // an unserved Optional stays unresolved
    }

    @Test func aLazyStaticPropertyFallsBackToItsInitialValueOrDefaultConstruction() throws {
        #expect(StaticLazies.constructed.label == "default")
        #expect(StaticLazies.initial.label == "initial value")
        let error = #expect(throws: SpellError.self) { try StaticLazies.$impossible.value() }
        #expect(error == .notConstructible(property: "impossible", container: "StaticLazies", type: "HTTPClient"))
    }

    @Test func aStaticPropertyFromItsOwnInitializerIsACycle() {
        let cell = StaticCycle.$client   // Sendable: the initializer may read it on any thread
        staticRegistry.register((any RequestClient).self) { _ in try cell.value() }
        let error = #expect(throws: SpellError.self) { try cell.value() }
        #expect(error == .dependencyCycle(chain: ["StaticCycle.client", "StaticCycle.client"]))
    }

    @Test func anInitializerWithATypedSenderSaysItCannotServeAStaticProperty() {
        staticRegistry.register(RequestManager.self, container: StaticTyped.self) { (_: StaticTyped) in RequestManager() }
        let error = #expect(throws: SpellError.self) { try StaticTyped.$manager.value() }
        #expect(error?.description.hasPrefix(
            "the initializer for RequestManager registered at BloodMagicTests/StaticSpellTests.swift:") == true)
        #expect(error?.description.contains("takes a StaticTyped instance as its sender and cannot serve a static property of StaticTyped") == true)
    }

    @Test func subclassRegistrationsMatchByTheSuperclassChain() {
        staticRegistry.register(RequestManager.self, container: StaticBase.self, includingSubclasses: true) { _ in
            RequestManager(label: "for subclasses")
        }
        // Typed sender StaticBase: the static container is not an instance.
        #expect(throws: SpellError.self) { try StaticDerived.$manager.value() }
        staticRegistry.registerInitializer(type: SpellTypeKey(RequestManager.self), container: .kindOf(SpellTypeKey(StaticBase.self)), source: "test") { _ in
            RequestManager(label: "kind of StaticBase")
        }
        #expect(StaticDerived.manager.label == "kind of StaticBase")
    }

    @Test func concurrentFirstReadsMakeTheValueOnce() {
        let made = CallCounter()
        staticRegistry.register(CallCounter.self) { _ in
            made.increment()
            return CallCounter()
        }
        let cell = StaticShared.$counter
        #expect(distinctObjects(readOn: 16) { try! cell.value() } == 1)
        #expect(made.value == 1)
    }

    @Test func aStaticPreferenceUsesTheKeyGeneratorAndItsOwnKey() throws {
        staticRegistry.setPreferenceKeyGenerator { container, property in "\(container).\(property)" }
        StaticSettings.nickname = "Grace"
        #expect(staticStore.value(forKey: "StaticSettings.nickname") == .string("Grace"))
        #expect(StaticSettings.nickname == "Grace")
        #expect(StaticSettings.volume == 5)
        StaticSettings.volume = 9
        #expect(staticStore.value(forKey: "explicit.volume") == .int(9))
        #expect(StaticSettings.$volume.key == "explicit.volume")
        StaticSettings.nickname = nil
        #expect(staticStore.value(forKey: "StaticSettings.nickname") == nil)
        try StaticSettings.$volume.remove()
    }
}
