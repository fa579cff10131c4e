@testable import BloodMagic
import Testing

// Issue 29: @Resolved, the spell for structs: resolved when the struct is
// made, from the current registry, with no sender.

final class ResolvedPricing: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

protocol ResolvedAnalytics: Sendable {}
final class ResolvedTracker: ResolvedAnalytics {}

struct ResolvedSettings: Equatable, Sendable {
    var currency: String
}

private struct CheckoutForm {
    @Resolved var pricing: ResolvedPricing
    @Resolved var analytics: (any ResolvedAnalytics)?
    @Resolved var settings: ResolvedSettings
}

private struct NamedForm {
    @Resolved(in: NamedForm.self) var pricing: ResolvedPricing
}

@Suite("@Resolved in structs")
struct ResolvedTests {
    @Test func aStructResolvesWhenMadeFromTheCurrentRegistryWithNoSender() throws {
        let registry = Registry()
        let senders = CallCounter()
        registry.register(ResolvedPricing.self) { sender in
            if sender is NoSender { senders.increment() }
            return ResolvedPricing(label: "any")
        }
        registry.register(ResolvedSettings.self, scope: .singleton) { _ in ResolvedSettings(currency: "EUR") }
        let form = Registry.withCurrent(registry) { CheckoutForm() }
        #expect(form.pricing.label == "any")
        #expect(form.analytics == nil)
        #expect(form.settings == ResolvedSettings(currency: "EUR"))
        #expect(senders.value == 1)
        // A copy carries the same value; a new struct resolves again.
        let copy = form
        #expect(copy.pricing === form.pricing)
        let other = Registry.withCurrent(registry) { CheckoutForm() }
        #expect(other.pricing !== form.pricing)
    }

    @Test func aProtocolTypedPropertyAndAGivenValue() throws {
        let registry = Registry()
        registry.register((any ResolvedAnalytics).self) { _ in ResolvedTracker() }
        registry.register(ResolvedPricing.self) { _ in ResolvedPricing(label: "x") }
        registry.register(ResolvedSettings.self) { _ in ResolvedSettings(currency: "USD") }
        let form = Registry.withCurrent(registry) { CheckoutForm() }
        #expect(form.analytics is ResolvedTracker)
        struct Preview {
            @Resolved var settings = ResolvedSettings(currency: "GBP")
        }
        #expect(Preview().settings.currency == "GBP")
    }

    @Test func aStructMadeByAnInitializerResolvesThroughItsRegistry() throws {
        let registry = Registry()
        registry.register(ResolvedPricing.self) { _ in ResolvedPricing(label: "inner") }
        final class Screen {
            @Injectable var label: String
        }
        registry.register(String.self) { _ in NamedForm().pricing.label }
        #expect(try Registry.withCurrent(registry) { Screen() }.$label.value() == "inner")
    }

    @Test func registrationsForTheStructsNameApplyWithIn() throws {
        let registry = Registry()
        registry.register(ResolvedPricing.self) { _ in ResolvedPricing(label: "any") }
        registry.registerInitializer(
            type: SpellTypeKey(ResolvedPricing.self), container: .exactly(SpellTypeKey(NamedForm.self)), source: "test:1"
        ) { _ in ResolvedPricing(label: "form") }
        #expect(Registry.withCurrent(registry) { NamedForm() }.pricing.label == "form")
        #expect(Registry.withCurrent(registry) { CheckoutFormPricingOnly() }.pricing.label == "any")
    }

    @Test func resolveValueThrowsWhatAReadWouldTrapWith() throws {
        let registry = Registry()
        #expect(throws: SpellError.noInitializer(property: "pricing", container: "(none)", type: "ResolvedPricing", closest: [])) {
            try registry.resolveValue(ResolvedPricing.self, property: "pricing")
        }
        registry.register(ResolvedPricing.self) { _ in ResolvedPricing(label: "x") }
        registry.registerInitializer(type: SpellTypeKey(ResolvedSettings.self), source: "wiring.lua:3") { _ in 42 }
        #expect(throws: SpellError.wrongValueType(
            property: "settings", container: "(none)", expected: "ResolvedSettings", actual: "Int", source: "wiring.lua:3")) {
            try registry.resolveValue(ResolvedSettings.self, property: "settings")
        }
        #expect(try registry.resolveValue(ResolvedPricing.self).label == "x")
        #expect(try registry.resolveValue((any ResolvedAnalytics)?.self, in: NamedForm.self) == nil)
    }
}

private struct CheckoutFormPricingOnly {
    @Resolved var pricing: ResolvedPricing
}
