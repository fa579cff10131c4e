import Foundation
import Testing
@testable import BloodMagicLua

// Issue 29, value types: a struct's @Resolved properties are in the app
// manifest (`host.declare(value:)`), so `bmlua check` sees the types they
// need: one nothing registers is an error at the declaration's line.

final class CheckedPricing: Sendable {}
final class CheckedAnalytics: Sendable {}
final class CheckedQuote: Sendable {}

struct CheckoutFormForCheck {
    @Resolved var pricing: CheckedPricing
    @Resolved var analytics: CheckedAnalytics?
    @Resolved var quote: CheckedQuote
    var title = "checkout"
}

/// A host that declares the struct from a sample made without resolving.
private func structAppHost() throws -> ScriptHost {
    let host = try makeHost()
    host.declare(value: CheckoutFormForCheck(
        pricing: Resolved(wrappedValue: CheckedPricing()), analytics: Resolved(wrappedValue: nil),
        quote: Resolved(wrappedValue: CheckedQuote())), line: 77)
    return host
}

@Suite("ScriptChecker and structs' @Resolved properties")
struct ScriptCheckerStructTests {
    func check(_ files: [String: String]) throws -> [String] {
        let dir = try makeScripts(files)
        let checker = ScriptChecker(manifest: try structAppHost().manifest())
        return try checker.check(directory: dir, limits: LuaLimits(maxMemory: 64 << 20, maxInstructions: 2_000_000))
            .map { $0.description.replacingOccurrences(of: dir, with: "$") }
    }

    @Test func theManifestDescribesTheStructsResolvedProperties() throws {
        let manifest = try structAppHost().manifest()
        let form = try #require(manifest.container(named: "CheckoutFormForCheck"))
        #expect(form.properties.map { "\($0.name):\($0.spell.rawValue):\($0.optional)" }
            == ["analytics:resolved:true", "pricing:resolved:false", "quote:resolved:false"])
        #expect(form.superclasses.isEmpty)
        #expect(form.source?.hasSuffix("ScriptCheckerStructTests.swift:77") == true)
        let data = try manifest.jsonData()
        #expect(String(decoding: data, as: UTF8.self).contains("\"spell\" : \"resolved\""))
        #expect(try JSONDecoder().decode(AppManifest.self, from: data) == manifest)
    }

    /// A type nothing registers is an error at the declaration; one a script
    /// registers, and an Optional, are not.
    @Test func anUnservedResolvedPropertyIsAnError() throws {
        let problems = try check(["wiring.lua": """
            bm.initializer { type = "CheckedPricing", init = function() return {} end }
            """])
        let quote = problems.first { $0.contains("CheckoutFormForCheck.quote") }
        #expect(quote?.contains("error: CheckoutFormForCheck.quote: no initializer for CheckedQuote in CheckoutFormForCheck") == true,
            "\(problems)")
        #expect(quote?.contains("ScriptCheckerStructTests.swift:77") == true)
        #expect(!problems.contains { $0.contains("CheckoutFormForCheck.pricing") || $0.contains("CheckoutFormForCheck.analytics") },
            "\(problems)")
    }

    /// A registration that takes arguments cannot serve a struct's property
    /// (it resolves with none).
    @Test func aRegistrationTakingArgumentsIsAnError() throws {
        let problems = try check(["wiring.lua": """
            bm.initializer { type = "CheckedPricing", init = function() return {} end }
            bm.initializer { type = "CheckedQuote", arguments = { "id" }, init = function(_, id) return {} end }
            """])
        #expect(problems.contains { $0.contains("error: CheckoutFormForCheck.quote:") && $0.contains("takes arguments (id)") },
            "\(problems)")
    }

    /// A script's initializer for the struct's container name serves it
    /// (no "has no lazy or injectable property" warning).
    @Test func anInitializerForTheStructByNameIsClean() throws {
        let problems = try check(["wiring.lua": """
            bm.initializer { type = "CheckedPricing", init = function() return {} end }
            bm.initializer { type = "CheckedQuote", container = "CheckoutFormForCheck", init = function() return {} end }
            """])
        #expect(!problems.contains { $0.contains("CheckoutFormForCheck") }, "\(problems)")
    }
}
