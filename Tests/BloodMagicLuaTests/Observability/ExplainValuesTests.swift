import Foundation
import TestSupport
import Testing
@testable import BloodMagicLua

// Issue 29, value types in `bmlua explain`: a struct the app declared with
// `declare(value:)` is explained by its @Resolved properties, each with
// what serves it (a script's registration, the app's Swift one, or nothing).

final class ExplainedPricing: Sendable {}
final class ExplainedAnalytics: Sendable {}
final class ExplainedQuote: Sendable {}
final class ExplainedTaxes: Sendable {}

struct ExplainedCheckout {
    @Resolved var pricing: ExplainedPricing
    @Resolved var analytics: ExplainedAnalytics?
    @Resolved var quote: ExplainedQuote
    @Resolved var taxes: ExplainedTaxes
}

/// A host declaring `ExplainedCheckout` at line 40, with a Swift
/// registration of `ExplainedTaxes` at line 41.
private func checkoutHost() throws -> ScriptHost {
    let host = try makeHost()
    host.declare(value: ExplainedCheckout(
        pricing: Resolved(wrappedValue: ExplainedPricing()), analytics: Resolved(wrappedValue: nil),
        quote: Resolved(wrappedValue: ExplainedQuote()), taxes: Resolved(wrappedValue: ExplainedTaxes())),
        fileID: "App/Setup.swift", line: 40)
    host.registry.register(ExplainedTaxes.self, fileID: "App/Setup.swift", line: 41) { _ in ExplainedTaxes() }
    return host
}

private let wiring = """
    bm.singleton { type = "ExplainedPricing", init = function() return {} end }
    """

@Suite("bmlua explain and structs' @Resolved properties", .serialized)
struct ExplainValuesTests {
    @Test func theHostExplainsADeclaredStruct() throws {
        let host = try checkoutHost()
        defer { host.unload() }
        try host.lua(wiring, file: "wiring.lua")
        let explained = try #require(host.explain(value: "ExplainedCheckout"))
        #expect(explained.description == """
            ExplainedCheckout (a struct declared at App/Setup.swift:40): its @Resolved properties resolve when it is made, with no container object
              analytics: Optional<ExplainedAnalytics> <- nothing: reads nil
              pricing: ExplainedPricing <- the singleton at wiring.lua:1
              quote: ExplainedQuote <- nothing serves it: making the struct traps
              taxes: ExplainedTaxes <- the initializer at App/Setup.swift:41
            """)
        #expect(host.explain(value: "ExplainedPricing") == nil)
    }

    /// The CLI has the scripts' registrations and the manifest: the app's
    /// Swift registration is named from the manifest.
    @Test func theCLIExplainsAStructOfTheManifest() throws {
        let host = try checkoutHost()
        defer { host.unload() }
        let dir = try scratchDirectory(["10-w.lua": wiring])
        let manifest = dir.appendingPathComponent("app.json")
        try host.manifest().jsonData().write(to: manifest)
        let result = try bmlua(["explain", "ExplainedCheckout", "--manifest", manifest.path, "--scripts", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("  pricing: ExplainedPricing <- the singleton at \(dir.path)/10-w.lua:1\n"), "\(result.stdout)")
        #expect(result.stdout.contains("  taxes: ExplainedTaxes <- the app's Swift initializer at App/Setup.swift:41\n"),
            "\(result.stdout)")
        #expect(result.stdout.contains("  quote: ExplainedQuote <- nothing serves it"), "\(result.stdout)")
        // Without the manifest, the struct is an unknown type, as before.
        let unknown = try bmlua(["explain", "ExplainedCheckout", "--scripts", dir.path])
        #expect(unknown.status == 1 && unknown.stderr.contains("unknown type 'ExplainedCheckout'"), "\(unknown.stderr)")
    }
}
