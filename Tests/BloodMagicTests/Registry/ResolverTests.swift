import BloodMagic
import Logging
import Synchronization
import Testing

// Force injection: resolvers asked when no registration serves a property.

private final class OrdersScreen {
    @Injectable var log: Logger
    @Injectable var manager: RequestManager
}

private final class CartScreen {
    @Injectable var log: Logger
}

private final class ResolverProbe: PropertyInjectionObserving {
    @Injectable var client: any RequestClient & Cancellable
    @Lazy var manager: RequestManager
    @Lazy var fallbackManager = RequestManager(label: "initial value")
    @Injectable var maybe: HTTPClient?
    @Injectable var required: HTTPClient
    var injected: [String] = []

    func propertyInjected(name: String, value: Any) { injected.append(name) }
}

/// What resolvers were asked, from any thread.
private typealias RequestLog = SharedLog<String>

@Suite struct ResolverTests {
    @Test func aLoggerPerContainerForEveryInjectableLogger() {
        let registry = Registry()
        registry.register(RequestManager.self) { _ in RequestManager(label: "registered") }
        registry.addResolver(for: Logger.self) { request in Logger(label: request.container.name) }
        Registry.withCurrent(registry) {
            let orders = OrdersScreen(), cart = CartScreen()
            #expect(orders.log.label == "OrdersScreen")
            #expect(cart.log.label == "CartScreen")
            #expect(orders.manager.label == "registered")
        }
    }

    @Test func aRegisteredInitializerWinsAndTheResolverIsNotAsked() {
        let registry = Registry()
        let log = RequestLog()
        registry.register(RequestManager.self) { _ in RequestManager(label: "registered") }
        registry.addResolver { request in
            log.add(request.property)
            return .value(RequestManager(label: "resolved"))
        }
        Registry.withCurrent(registry) {
            let probe = ResolverProbe()
            #expect(probe.manager.label == "registered")
            #expect(ResolverProbe().manager.label == "registered")
        }
        #expect(log.all.isEmpty)
    }

    @Test func theRequestNamesContainerPropertyTypeAndSpell() throws {
        let registry = Registry()
        let log = RequestLog()
        let probe = ResolverProbe()
        let probeID = ObjectIdentifier(probe)
        registry.addResolver { request in
            let protocols = request.type.protocols?.joined(separator: "&") ?? "-"
            log.add("\(request.container.name).\(request.property) \(request.type.name) [\(protocols)] \(request.spell) "
                + "\(request.valueType.map { "\($0)" } ?? "nil") \(request.sender.map(ObjectIdentifier.init) == probeID)")
            return request.wants((any Cancellable & RequestClient).self) ? .value(HTTPClient(label: "forced")) : .skip
        }
        try Registry.withCurrent(registry) { () throws in
            #expect(try probe.$client.value().label == "forced")
            #expect(try probe.$manager.value().label == "default")
        }
        #expect(log.all == [
            "ResolverProbe.client any Cancellable & RequestClient [Cancellable&RequestClient] injectable Cancellable & RequestClient true",
            "ResolverProbe.manager RequestManager [-] lazy RequestManager true",
        ])
    }

    @Test func afterASkipTheUsualDefaultsApply() throws {
        let registry = Registry()
        registry.addResolver { _ in .skip }
        try Registry.withCurrent(registry) { () throws in
            let probe = ResolverProbe()
            #expect(probe.manager.label == "default")                       // default construction
            #expect(probe.fallbackManager.label == "initial value")         // the initial value
            #expect(probe.maybe == nil)                                     // an Optional injectable
            let error = #expect(throws: SpellError.self) { try probe.$required.value() }
            #expect(error?.description == "ResolverProbe.required: no initializer for HTTPClient in ResolverProbe (no registrations for HTTPClient)")
        }
    }

    @Test func aResolverComesBeforeTheInitialValueAndDefaultConstruction() {
        let registry = Registry()
        registry.addResolver(for: RequestManager.self) { request in RequestManager(label: "for \(request.property)") }
        Registry.withCurrent(registry) {
            let probe = ResolverProbe()
            #expect(probe.manager.label == "for manager")
            #expect(probe.fallbackManager.label == "for fallbackManager")
        }
    }

    @Test func theNewestResolverIsAskedFirstAndASkipFallsThrough() {
        let registry = Registry()
        let log = RequestLog()
        registry.addResolver { _ in
            log.add("older")
            return .value(HTTPClient(label: "older"))
        }
        let newer = registry.addResolver { request in
            log.add("newer")
            return request.property == "maybe" ? .value(HTTPClient(label: "newer")) : .skip
        }
        Registry.withCurrent(registry) {
            let probe = ResolverProbe()
            #expect(probe.maybe?.label == "newer")
            #expect(probe.required.label == "older")
            #expect(registry.entries.map(\.kind) == [.resolver, .resolver])
            #expect(registry.entries.map(\.source).allSatisfy { $0.hasPrefix("BloodMagicTests/ResolverTests.swift:") })
            #expect(registry.unregister(newer))
            #expect(ResolverProbe().maybe?.label == "older")
        }
        #expect(log.all == ["newer", "newer", "older", "older"])
    }

    @Test func hooksRunAfterAResolverInjects() {
        let registry = Registry()
        let log = RequestLog()
        registry.addResolver(for: HTTPClient.self) { _ in HTTPClient(label: "forced") }
        registry.addHook(for: ResolverProbe.self, property: "maybe", valueType: HTTPClient?.self) { _, value in
            log.add("hook \(value?.label ?? "nil")")
        }
        Registry.withCurrent(registry) {
            let probe = ResolverProbe()
            _ = probe.maybe
            _ = probe.maybe
            #expect(probe.injected == ["maybe"])
        }
        #expect(log.all == ["hook forced"])
    }

    @Test func aValueOfTheWrongTypeNamesTheResolver() {
        let registry = Registry()
        registry.addResolver(source: "wiring.swift:7") { _ in .value("not a client") }
        Registry.withCurrent(registry) {
            let error = #expect(throws: SpellError.self) { try ResolverProbe().$required.value() }
            #expect(error?.description == "ResolverProbe.required: the resolver registered at wiring.swift:7 returned String, expected HTTPClient")
        }
    }

    @Test func aResolverErrorReachesTheReader() {
        struct Refused: Error {}
        let registry = Registry()
        registry.addResolver { _ in throw Refused() }
        _ = Registry.withCurrent(registry) {
            #expect(throws: Refused.self) { try ResolverProbe().$required.value() }
        }
    }

    @Test func aResolverThatReadsItsOwnPropertyIsACycle() {
        let registry = Registry()
        registry.addResolver(for: HTTPClient.self) { request in
            try (request.sender as? ResolverProbe)?.$required.value()   // the property being resolved
        }
        Registry.withCurrent(registry) {
            let error = #expect(throws: SpellError.self) { try ResolverProbe().$required.value() }
            #expect(error == .dependencyCycle(chain: ["ResolverProbe.required", "ResolverProbe.required"]))
        }
    }

    @Test func theNamedEntryPointAsksResolversForScriptBridges() throws {
        let registry = Registry()
        registry.addResolver { request in
            .value("\(request.container.name).\(request.property) \(request.type.name) \(request.spell)")
        }
        let container = ContainerDescriptor(object: nil, key: SpellTypeKey(name: "LuaView"))
        let value = try registry.resolveSpelledProperty(
            type: SpellTypeKey(name: "Title"), container: container, property: "title", spell: .lazy)
        #expect(value as? String == "LuaView.title Title lazy")
        #expect(try registry.resolveIfRegistered(type: SpellTypeKey(name: "Title"), container: container, property: "title") == nil)
    }
}
