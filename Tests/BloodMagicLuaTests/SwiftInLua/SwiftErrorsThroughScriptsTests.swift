import Foundation
import Testing
@testable import BloodMagicLua

// An app's own Swift error, thrown by Swift code that a script's wiring
// calls, comes back to the app as itself: the cause of the LuaError that a
// script call or a Lua-served property read throws. Mistakes in the wiring
// itself are SpellErrors, whoever made them.

private struct OutOfStock: Error, Equatable {
    var item: String
}

/// Exposed to the scripts: `take` throws the app's error.
private final class Warehouse: LuaExposable {
    func take(_ item: String) throws -> String { throw OutOfStock(item: item) }
}

private struct StockItem: Codable, Equatable {
    var name: String
}

private final class Gadget {}
private final class Missing {}

/// A Swift object whose own injected property has no initializer.
private final class Needy {
    @Injectable var missing: Missing
}

/// Served from Lua (the registry is the host's, installed with withCurrent).
private final class Counter {
    @Injectable var item: StockItem
    @Injectable var gadget: Gadget
    @Preference var label: String?
}

// The example of the article "Wiring mistakes in scripts" (Which error a
// read throws), as written there.

private struct ArticleOutOfStock: Error {
    var item: String
}

private final class ArticleWarehouse: LuaExposable {
    func pageSize() throws -> Int { throw ArticleOutOfStock(item: "pages") }
}

private struct ArticleFeedConfig: Decodable {
    var pageSize: Int = 20
}

private final class ArticleFeedScreen {
    @Injectable var config: ArticleFeedConfig
}

/// A host with `Warehouse` exposed, on its own registry, running `script` as `wiring.lua`.
private func makeStockHost(_ script: String) throws -> ScriptHost {
    let host = try makeHost()
    host.expose(LuaExposedType(Warehouse.self)
        .constructor { _ in Warehouse() }
        .method("take", arguments: ["item"]) { (warehouse: Warehouse, item: String) throws -> String in try warehouse.take(item) })
    try host.lua(script, file: "wiring.lua")
    return host
}

/// The error `read` raises on a new `Counter` served by `host`'s wiring;
/// records an issue at the caller's line, and throws, when it raises none
/// of type `E`.
private func readFailure<E: Error, R>(
    _ type: E.Type, in host: ScriptHost, sourceLocation: SourceLocation = #_sourceLocation, _ read: (Counter) throws -> R
) throws -> E {
    try Registry.withCurrent(host.registry) { () throws in
        try #require(throws: E.self, sourceLocation: sourceLocation) { try read(Counter()) }
    }
}

@Suite("Swift errors through scripts")
struct SwiftErrorsThroughScriptsTests {
    @Test func aLuaServedPropertyThrowsTheAppsErrorAsTheCause() throws {
        let host = try makeStockHost("""
            bm.initializer { type = "StockItem", init = function()
              return { name = Warehouse.new():take("bolts") }
            end }
            """)
        defer { host.unload() }
        try Registry.withCurrent(host.registry) { () throws in
            let counter = Counter()
            do {
                _ = try counter.$item.value()
                Issue.record("the read should fail")
            } catch let error as LuaError where error.cause is OutOfStock {
                #expect(error.cause(as: OutOfStock.self) == OutOfStock(item: "bolts"))
                #expect(error.message == "wiring.lua:2: OutOfStock(item: \"bolts\")")
                #expect(error.chunk == "wiring.lua" && error.line == 2)
            }
            #expect(!counter.$item.isResolved)
        }
    }

    /// The initializer catches the error with pcall and raises it again.
    @Test func aCaughtAndRethrownErrorKeepsItsCause() throws {
        let host = try makeStockHost("""
            bm.initializer { type = "StockItem", init = function()
              local ok, err = pcall(Warehouse.take, Warehouse.new(), "nuts")
              if not ok then
                local ok2, again = pcall(error, err)
                error(again)
              end
            end }
            """)
        defer { host.unload() }
        let error = try readFailure(LuaError.self, in: host) { try $0.$item.value() }
        #expect(error.cause(as: OutOfStock.self) == OutOfStock(item: "nuts"))
        #expect(error.message == "wiring.lua:2: OutOfStock(item: \"nuts\")")
    }

    /// A Swift initializer or resolver that the registry runs for a script
    /// (`bm.resolve`, a Lua class's property) throws: the script call fails
    /// with the app's error as the cause.
    @Test func swiftInitializersAndResolversRunForAScript() throws {
        let host = try makeStockHost("")
        defer { host.unload() }
        host.registry.register(Gadget.self) { _ in throw OutOfStock(item: "gadget") }
        let resolved = try #require(throws: LuaError.self) { try host.lua("\nreturn bm.resolve('Gadget')", file: "use.lua") }
        #expect(resolved.cause(as: OutOfStock.self) == OutOfStock(item: "gadget"))
        #expect(resolved.message == "use.lua:2: OutOfStock(item: \"gadget\")")

        host.registry.addResolver { request in
            guard request.property == "part" else { return .skip }
            throw OutOfStock(item: request.container.name + "." + request.property)
        }
        let property = try #require(throws: LuaError.self) {
            try host.lua("local Shelf = bm.class('Shelf', { part = bm.spell.injectable('Part') })\nreturn Shelf.new().part", file: "shelf.lua")
        }
        #expect(property.cause(as: OutOfStock.self) == OutOfStock(item: "Shelf.part"))
        #expect(property.message.hasPrefix("shelf.lua:2: "), "\(property.message)")
    }

    /// A wiring mistake found in Swift while a Lua initializer runs (here a
    /// Swift initializer it asks for reads a property nothing serves) is a
    /// LuaError whose cause is the SpellError.
    @Test func aSpellErrorUnderALuaInitializerIsTheCause() throws {
        let host = try makeStockHost("""
            bm.initializer { type = "StockItem", init = function()
              bm.resolve("Gadget")
            end }
            """)
        defer { host.unload() }
        host.registry.register(Gadget.self) { _ in
            _ = try Needy().$missing.value()
            return Gadget()
        }
        let error = try readFailure(LuaError.self, in: host) { try $0.$item.value() }
        let spell = try #require(error.cause(as: SpellError.self))
        guard case .noInitializer(property: "missing", container: let container, type: let type, closest: _) = spell else {
            Issue.record("unexpected \(spell)")
            return
        }
        #expect(container.hasSuffix("Needy") && type.hasSuffix("Missing"))
        #expect(error.message.hasPrefix("wiring.lua:2: "), "\(error.message)")
    }

    @Test func theArticlesExampleCatchesTheAppsError() throws {
        let wiring = try ScriptHost(options: .init(registry: Registry()))
        defer { wiring.unload() }
        wiring.expose(LuaExposedType(ArticleWarehouse.self, name: "Warehouse")
            .constructor { _ in ArticleWarehouse() }
            .method("pageSize") { (warehouse: ArticleWarehouse) throws -> Int in try warehouse.pageSize() })
        _ = try wiring.run("""
            bm.initializer { type = "ArticleFeedConfig", init = function()
              return { pageSize = Warehouse.new():pageSize() }
            end }
            """, name: "@wiring.lua")
        var caught = ""
        do {
            let config = try Registry.withCurrent(wiring.registry) { try ArticleFeedScreen().$config.value() }
            caught = "page size \(config.pageSize)"
        } catch let error as LuaError where error.cause is ArticleOutOfStock {
            caught = "out of \(error.cause(as: ArticleOutOfStock.self)?.item ?? "?") at \(error.message)"
        } catch let error as LuaError {
            caught = "the script failed: \(error.message)"
        } catch let error as SpellError {
            caught = "the wiring is wrong: \(error)"
        }
        #expect(caught == "out of pages at wiring.lua:2: ArticleOutOfStock(item: \"pages\")")
    }

    // MARK: - Wiring mistakes of scripts are SpellErrors

    @Test func aLuaValueOfTheWrongTypeIsASpellError() throws {
        let host = try makeStockHost("""
            bm.initializer { type = "StockItem", init = function() return { title = "no name" } end }
            bm.initializer { type = "Gadget", init = function() return 42 end }
            """)
        defer { host.unload() }
        let item = try readFailure(SpellError.self, in: host) { try $0.$item.value() }
        guard case .wrongValueType("item", let container, let expected, let actual, "wiring.lua:1") = item else {
            Issue.record("unexpected \(item)")
            return
        }
        #expect(container.hasSuffix("Counter") && expected.hasSuffix("StockItem"))
        #expect(actual.hasPrefix("a table ("), "\(actual)")
        let gadget = try readFailure(SpellError.self, in: host) { try $0.$gadget.value() }
        guard case .wrongValueType("gadget", _, _, let integer, "wiring.lua:2") = gadget else {
            Issue.record("unexpected \(gadget)")
            return
        }
        #expect(integer.hasPrefix("an integer"), "\(integer)")
    }

    @Test func aLuaResolversValueOfTheWrongTypeIsASpellError() throws {
        let host = try makeStockHost("bm.resolver(function() return 'text' end)")
        defer { host.unload() }
        let error = try readFailure(SpellError.self, in: host) { try $0.$gadget.value() }
        guard case .wrongResolvedType("gadget", _, _, let actual, "wiring.lua:1") = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(actual.hasPrefix("a string"), "\(actual)")
    }

    @Test func aLuaKeyFunctionsBadKeyIsASpellError() throws {
        let host = try makeStockHost("bm.preference_keys(function(container, property) return '' end)")
        defer { host.unload() }
        let error = try readFailure(SpellError.self, in: host) { try $0.$label.get() }
        guard case .preferenceKeyInvalid("label", let container, let reason) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(container.hasSuffix("Counter"))
        #expect(reason == "the bm.preference_keys function registered at wiring.lua:1 returned an empty string")
    }

    /// The host's narrow APIs say what they throw: a caller handles a
    /// LuaError without casting.
    @Test func narrowHostAPIsThrowLuaErrorsTyped() throws {
        let make: () throws(LuaError) -> ScriptHost = { () throws(LuaError) in
            try ScriptHost(options: .init(registry: Registry(), preferences: InMemoryPreferenceStore()))
        }
        let host = try make()
        let describe: () throws(LuaError) -> String = { () throws(LuaError) in
            try host.annotations(manifest: nil) + "\(try host.apiDescription().functions.count)"
        }
        #expect(try describe().contains("---@meta"))
        let inspect: () throws(LuaError) -> ScriptHost = { () throws(LuaError) in
            try ScriptChecker.inspectionHost(scriptsDirectory: nil)
        }
        #expect(try inspect().registry.entries.isEmpty)
        let watch: () throws(LuaError) -> Void = { () throws(LuaError) in try host.watch(.polling(interval: .seconds(1))) }
        try watch()
        host.stopWatching()
    }

    /// Writing annotations fails with a LuaError that names the file, not
    /// with whatever the file system threw.
    @Test func annotationsThrowLuaErrors() throws {
        let host = try makeHost()
        let error = try #require(throws: LuaError.self) {
            try host.writeAnnotations(toDirectory: "/dev/null/annotations")
        }
        #expect(error.kind == .io)
        #expect(error.message == "cannot write /dev/null/annotations/\(LuaAnnotations.fileName): not a directory")
    }
}
