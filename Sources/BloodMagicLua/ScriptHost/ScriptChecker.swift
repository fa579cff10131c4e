import Foundation

/// Loads startup scripts in a fresh host and reports every problem without
/// running app code.
///
/// It finds syntax and load errors (in startup scripts, `partials/`
/// templates and modules for `require`, at their own `file:line`), unknown
/// and missing fields (at the field's line, with the closest known field),
/// shadowed registrations, a class name declared twice, hooks, preference
/// overrides and initializers that name containers or properties nobody
/// declares, spelled properties nothing can serve, and — in a dry run that
/// makes an instance of each Lua class, reads its injected properties and
/// calls every other initializer it can — initializers that fail, return nil
/// for a non-optional property, never end (each step has its own instruction
/// budget), return the wrong type for a Swift property, or form a dependency
/// cycle (also one whose steps create new objects).
///
/// Given the app's ``AppManifest`` it also sees the Swift side: the
/// containers' spelled properties, the exposed types (scripts and
/// initializers run against stand-ins that check members and arguments as
/// the bridge does) and the app's globals and Swift registrations.
///
/// ```swift
/// // In the app's own test suite:
/// let host = try makeAppHost()                      // exposes, declares, sets globals
/// let problems = try ScriptChecker(manifest: host.manifest()).check(directory: "Scripts")
/// #expect(problems.isEmpty, "\(problems)")
/// ```
///
/// Scripts' `print` writes to standard error during a check.
public struct ScriptChecker: Sendable {
    /// The app the scripts wire, when known.
    public var manifest: AppManifest?

    /// A checker; with `manifest`, for the scripts of that app.
    public init(manifest: AppManifest? = nil) {
        self.manifest = manifest
    }

    /// Checks every `*.lua` of `directory` (as startup scripts), and the
    /// other Lua files below it (templates, modules) for syntax errors.
    public func check(directory: String, limits: LuaLimits = ScriptChecker.inspectionLimits) throws -> [ScriptProblem] {
        try report(directory: directory, limits: limits).problems
    }

    /// Checks `files` as startup scripts, in order; `partials/` and
    /// `require` are looked up beside the first file.
    public func check(files: [String], limits: LuaLimits = ScriptChecker.inspectionLimits) throws -> [ScriptProblem] {
        try report(files: files, limits: limits).problems
    }

    /// As ``check(directory:limits:)``, with the names the check could not
    /// see without the app's manifest (``ScriptCheckReport/uncheckedNames``).
    public func report(directory: String, limits: LuaLimits = ScriptChecker.inspectionLimits) throws -> ScriptCheckReport {
        let host = try Self.inspectionHost(scriptsDirectory: directory, limits: limits)
        let files: [String]
        do {
            files = try host.startupScripts()
        } catch {
            throw error.failures.first ?? LuaError(.io, "cannot read \(directory)")
        }
        return try ScriptCheckRun(host: host, manifest: manifest, files: files, directory: directory).run()
    }

    /// As ``check(files:limits:)``, with the names the check could not see
    /// without the app's manifest (``ScriptCheckReport/uncheckedNames``).
    public func report(files: [String], limits: LuaLimits = ScriptChecker.inspectionLimits) throws -> ScriptCheckReport {
        let directory = files.first.map(ScriptPath.directory(of:)) ?? "."
        let host = try Self.inspectionHost(scriptsDirectory: directory, limits: limits)
        return try ScriptCheckRun(host: host, manifest: manifest, files: files, directory: directory).run()
    }

    /// The limits of a host that only inspects scripts. The instruction
    /// budget applies to each file's loading and to each step of the dry run.
    public static let inspectionLimits = LuaLimits(maxMemory: 256 << 20, maxInstructions: 50_000_000)

    /// A host for inspecting scripts without side effects: its own empty
    /// registry and an in-memory preference store, so loading the scripts
    /// changes nothing outside it, within `limits`. The scripts' `print`
    /// writes to standard error, so that a tool's own output (JSON) stays
    /// valid.
    public static func inspectionHost(scriptsDirectory: String?, limits: LuaLimits = inspectionLimits) throws(LuaError) -> ScriptHost {
        let host = try ScriptHost(options: .init(
            scriptsDirectory: scriptsDirectory, limits: limits, registry: Registry(), preferences: InMemoryPreferenceStore()))
        host.state.withStack { lua in
            lua.register("print") { lua in
                var parts: [String] = []
                for index in stride(from: Int32(1), through: lua.top, by: 1) {
                    parts.append(try lua.describe(at: index))
                }
                FileHandle.standardError.write(Data((parts.joined(separator: "\t") + "\n").utf8))
                return 0
            }
        }
        return host
    }
}
