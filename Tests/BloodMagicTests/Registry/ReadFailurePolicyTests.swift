import BloodMagic
import Foundation
import Logging
import Testing
import TestSupport

// Issue 27: a read that fails must not take a server down. The getter traps
// by default; under `.logAndUseFallback` it logs the error and reads the
// property's fallback, and `try $x.value()` throws under every policy.

private struct WiringFailure: Error, CustomStringConvertible {
    var description: String { "the wiring is broken" }
}

/// A service the app can make itself (its fallback).
private final class PolicyClock: DefaultConstructible {
    let zone: String
    init() { zone = "default" }
    init(zone: String) { self.zone = zone }
}

/// A service only the wiring can make.
private final class PolicyMailer {
    let host: String
    init(host: String) { self.host = host }
}

private final class PolicyController {
    @Lazy var clock: PolicyClock
    @Lazy var greeting = "hello"
    @Injectable var mailer: PolicyMailer?
}

private final class StrictController {
    @Injectable var mailer: PolicyMailer
}

private let staticPolicyRegistry: Registry = {
    let registry = Registry()
    registry.readFailurePolicy = .logAndUseFallback
    return registry
}()

@MainActor private enum PolicyStatics {
    @StaticLazy(in: PolicyStatics.self, name: "clock", registry: staticPolicyRegistry)
    static var clock: PolicyClock
    @StaticInjectable(in: PolicyStatics.self, name: "mailer", registry: staticPolicyRegistry)
    static var mailer: PolicyMailer?
}

/// A registry whose initializers all fail, with its log.
private func failingRegistry() -> (Registry, CapturedLog) {
    let registry = Registry()
    let log = CapturedLog()
    registry.logger = log.logger(level: .info)
    registry.register(PolicyClock.self) { _ in throw WiringFailure() }
    registry.register(String.self) { _ in throw WiringFailure() }
    registry.registerInitializer(type: SpellTypeKey(PolicyMailer.self), source: "mail.lua:3") { _ in "not a mailer" }
    return (registry, log)
}

@Suite struct ReadFailurePolicyTests {
    @Test func aRegistryTrapsOnAFailedReadByDefault() {
        #expect(Registry().readFailurePolicy == .trap)
        #expect(Registry.shared.readFailurePolicy == .trap)
    }

    @Test func logAndUseFallbackReadsTheFallbackAndLogsTheError() {
        let (registry, log) = failingRegistry()
        registry.readFailurePolicy = .logAndUseFallback
        let controller = Registry.withCurrent(registry) { PolicyController() }
        #expect(controller.clock.zone == "default")      // init(): DefaultConstructible
        #expect(controller.greeting == "hello")          // the initial value
        #expect(controller.mailer == nil)                // an Optional: nil
        let errors = log.events.filter { $0.level == .error }
        #expect(errors.map { $0["property"] }.sorted() == ["clock", "greeting", "mailer"], "\(errors)")
        #expect(errors.allSatisfy { $0["container"] == "PolicyController" })
        #expect(errors.filter { $0["error"] == "the wiring is broken" }.map { $0["property"] }.sorted() == ["clock", "greeting"])
        #expect(errors.contains { $0["error"].contains("the initializer registered at mail.lua:3 returned") })
        #expect(errors.contains { $0.message.contains("reading PolicyController.mailer failed, so it reads nil") })
        // A fallback value is kept; nil is not: the next read tries again.
        #expect(controller.$clock.isResolved)
        #expect(!controller.$mailer.isResolved)
    }

    @Test func aNilFallbackIsNotKeptSoAFixedWiringServesTheNextRead() {
        let (registry, _) = failingRegistry()
        registry.readFailurePolicy = .logAndUseFallback
        let controller = Registry.withCurrent(registry) { PolicyController() }
        #expect(controller.mailer == nil)
        registry.register(PolicyMailer.self) { _ in PolicyMailer(host: "smtp.example.com") }
        #expect(controller.mailer?.host == "smtp.example.com")
    }

    @Test func valueStillThrowsUnderEveryPolicy() {
        for policy in [ReadFailurePolicy.trap, .logAndUseFallback] {
            let (registry, log) = failingRegistry()
            registry.readFailurePolicy = policy
            let controller = Registry.withCurrent(registry) { PolicyController() }
            #expect(throws: WiringFailure.self) { try controller.$clock.value() }
            #expect(throws: SpellError.self) { try controller.$mailer.value() }
            let strict = Registry.withCurrent(registry) { StrictController() }
            #expect {
                try strict.$mailer.value()
            } throws: { error in
                "\(error)".contains("the initializer registered at mail.lua:3 returned String, expected PolicyMailer")
            }
            #expect(log.events.filter { $0.level == .error }.isEmpty, "value() logs nothing: the caller has the error")
        }
    }

    @MainActor @Test func staticPropertiesReadTheirFallbackToo() {
        staticPolicyRegistry.register(PolicyClock.self) { _ in throw WiringFailure() }
        staticPolicyRegistry.register(PolicyMailer.self) { _ in throw WiringFailure() }
        #expect(PolicyStatics.clock.zone == "default")
        #expect(PolicyStatics.mailer == nil)
    }
}
