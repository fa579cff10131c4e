import BloodMagic
import Testing

// Issue 29, names on the other spells: `@Lazy(named:)` and the static
// spells' `named:`, served by the registration under the name only.

extension SpellName<HTTPClient> {
    static var archive: Self { "archive" }
    static var live: Self { "live" }
}

private final class NamedLazies {
    @Lazy(named: .primary) var primary: RequestManager
    @Lazy(named: .missing) var constructed: RequestManager
    @Lazy(named: .missing) var initial = RequestManager(label: "initial value")
    @Lazy(named: .archive) var archive: HTTPClient
    @Lazy var plain: RequestManager
}

private let namedStaticRegistry: Registry = {
    let registry = Registry()
    registry.register(HTTPClient.self, named: .archive) { _ in HTTPClient(label: "archive") }
    registry.register(HTTPClient.self, named: .live, scope: .singleton) { _ in HTTPClient(label: "live") }
    registry.register(HTTPClient.self) { _ in HTTPClient(label: "plain") }
    return registry
}()

@MainActor private final class NamedStatics {
    @StaticInjectable(in: NamedStatics.self, name: "archive", named: .archive, registry: namedStaticRegistry)
    static var archive: HTTPClient
    @StaticInjectable(in: NamedStatics.self, name: "plain", registry: namedStaticRegistry)
    static var plain: HTTPClient
    @StaticInjectable(in: NamedStatics.self, name: "unknown", named: "unknown", registry: namedStaticRegistry)
    static var unknown: HTTPClient
    @StaticInjectable(in: NamedStatics.self, name: "maybe", named: "unknown", registry: namedStaticRegistry)
    static var maybe: HTTPClient?
    @StaticLazy(in: NamedStatics.self, name: "live", named: .live, registry: namedStaticRegistry)
    static var live: HTTPClient
    @StaticLazy(in: NamedStatics.self, name: "lazyUnknown", named: "unknown", registry: namedStaticRegistry)
    static var lazyUnknown: HTTPClient
    @StaticLazy(in: NamedStatics.self, name: "initial", named: "unknown", registry: namedStaticRegistry)
    static var initial = HTTPClient(label: "initial value")
}

@Suite struct NamedLazyTests {
    @Test func aNamedLazyIsMadeByTheRegistrationUnderItsName() throws {
        let registry = Registry()
        registry.register(RequestManager.self, named: .primary) { _ in RequestManager(label: "primary") }
        registry.register(RequestManager.self) { _ in RequestManager(label: "plain") }
        registry.register(HTTPClient.self, named: .live) { _ in HTTPClient(label: "live") }
        let object = Registry.withCurrent(registry) { NamedLazies() }
        #expect(object.primary.label == "primary")
        #expect(object.primary === object.primary)
        #expect(object.plain.label == "plain")
        // Nothing under the name: a lazy falls back as any @Lazy does.
        #expect(object.constructed.label == "default")
        #expect(object.initial.label == "initial value")
        // Nothing makes it: the error lists the names registered for the type.
        #expect(throws: SpellError.unknownName(
            property: "archive", container: "NamedLazies", type: "HTTPClient", name: "archive", known: ["live"])
        ) { try object.$archive.value() }
    }
}

@Suite struct NamedStaticSpellTests {
    @MainActor @Test func namedStaticSpellsAreServedByTheirNames() throws {
        #expect(NamedStatics.archive.label == "archive")
        #expect(NamedStatics.plain.label == "plain")
        #expect(NamedStatics.live.label == "live")
        #expect(NamedStatics.live === NamedStatics.live)
        #expect(NamedStatics.maybe == nil)
        #expect(NamedStatics.initial.label == "initial value")
        #expect(throws: SpellError.unknownName(
            property: "unknown", container: "NamedStatics", type: "HTTPClient", name: "unknown", known: ["archive", "live"])
        ) { try NamedStatics.$unknown.value() }
        #expect(throws: SpellError.unknownName(
            property: "lazyUnknown", container: "NamedStatics", type: "HTTPClient", name: "unknown", known: ["archive", "live"])
        ) { try NamedStatics.$lazyUnknown.value() }
    }
}
