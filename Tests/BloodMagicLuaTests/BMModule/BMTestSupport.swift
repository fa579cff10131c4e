import Foundation
import Testing
@testable import BloodMagicLua

/// A host with its own registry and an in-memory preference store, so tests
/// never share state.
func makeHost(scripts: String? = nil, limits: LuaLimits = .none, preferences: (any PreferenceStore)? = nil) throws -> ScriptHost {
    try ScriptHost(options: .init(
        scriptsDirectory: scripts, limits: limits, registry: Registry(),
        preferences: preferences ?? InMemoryPreferenceStore()))
}

extension ScriptHost {
    /// Runs `code` as the chunk `@name` and returns its results.
    @discardableResult
    func lua(_ code: String, file name: String = "test.lua") throws -> [LuaValue] {
        try run(code, name: "@" + name)
    }

    /// The error `code` raises, as a message.
    func failure(_ code: String, file name: String = "test.lua") -> String? {
        do {
            try run(code, name: "@" + name)
            return nil
        } catch {
            return error.message
        }
    }
}

/// Runs `code` as the chunk `@name` in a new host (see `makeHost`) and
/// returns its results.
@discardableResult
func runInNewHost(_ code: String, file name: String = "test.lua") throws -> [LuaValue] {
    try makeHost().lua(code, file: name)
}

/// Writes files into a fresh directory: `["a.lua": "..."]` (see `scratchDirectory`).
func makeScripts(_ files: [String: String]) throws -> String {
    try scratchDirectory(files).path
}

/// Expects `annotations` (the text of a `bm.d.lua`) to run as Lua in a
/// fresh state: annotation files are valid Lua.
func expectAnnotationsRun(_ annotations: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let state = try LuaState()
    #expect(throws: Never.self, sourceLocation: sourceLocation) { try state.run(annotations, name: "=bm.d.lua") }
}
