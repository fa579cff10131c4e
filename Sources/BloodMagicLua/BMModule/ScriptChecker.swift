import Foundation

/// One problem `ScriptChecker` found, at a script position.
public struct ScriptProblem: Sendable, Equatable, Codable, CustomStringConvertible {
    /// How bad it is.
    public enum Severity: String, Sendable, Codable {
        /// The scripts cannot work as written.
        case error
        /// Probably a mistake: a shadowed registration, a hook for a property nobody declares.
        case warning
    }

    /// The file, as the scripts were named when loaded.
    public var file: String
    /// The line, or 0 when unknown.
    public var line: Int
    /// How bad it is.
    public var severity: Severity
    /// What is wrong.
    public var message: String

    /// `file:line: severity: message`, the form editors jump to.
    public var description: String { "\(file):\(line): \(severity.rawValue): \(message)" }
}

/// Loads startup scripts in a fresh host and reports every problem without
/// running app code: syntax and load errors, shadowed registrations, hooks
/// and preferences that name undeclared properties, spelled properties that
/// nothing can serve, and dependency cycles (found by a dry run that reads
/// each class's injected properties).
public struct ScriptChecker {
    /// Creates a checker.
    public init() {}

    /// Checks every `*.lua` of `directory` (as startup scripts).
    public func check(directory: String, limits: LuaLimits = ScriptChecker.inspectionLimits) throws -> [ScriptProblem] {
        let host = try makeHost(directory: directory, limits: limits)
        return try check(host: host, files: host.startupScripts())
    }

    /// Checks `files` as startup scripts, in order; `partials/` and
    /// `require` are looked up beside the first file.
    public func check(files: [String], limits: LuaLimits = ScriptChecker.inspectionLimits) throws -> [ScriptProblem] {
        let directory = files.first.map(ScriptPath.directory(of:)) ?? "."
        let host = try makeHost(directory: directory, limits: limits)
        return try check(host: host, files: files)
    }

    private func makeHost(directory: String, limits: LuaLimits) throws -> ScriptHost {
        try Self.inspectionHost(scriptsDirectory: directory, limits: limits)
    }

    /// The limits of a host that only inspects scripts.
    public static let inspectionLimits = LuaLimits(maxMemory: 256 << 20, maxInstructions: 50_000_000)

    /// A host for inspecting scripts without side effects: its own empty
    /// registry and an in-memory preference store, so loading the scripts
    /// changes nothing outside it, within `limits`.
    public static func inspectionHost(scriptsDirectory: String?, limits: LuaLimits = inspectionLimits) throws -> ScriptHost {
        try ScriptHost(options: .init(
            scriptsDirectory: scriptsDirectory, limits: limits, registry: Registry(), preferences: InMemoryPreferenceStore()))
    }

    private func check(host: ScriptHost, files: [String]) throws -> [ScriptProblem] {
        var problems: [ScriptProblem] = []
        do throws(ScriptLoadError) {
            try host.load(files: files)
        } catch {
            problems += error.failures.map { problem($0.chunk, $0.line, .error, $0.reason, fallback: $0.message) }
        }
        let registry = host.registry
        for diagnostic in registry.diagnostics {
            let handles = Set(diagnostic.handles)
            let newest = registry.entries.filter { handles.contains($0.handle) }.last
            problems.append(problem(source: newest?.source, .warning, diagnostic.message))
        }
        let report = try spellReport(host)
        problems += undeclaredProperties(registry: registry, report: report, classes: host.luaClasses)
        problems += unservable(host: host, report: report)
        problems += try dryRun(host)
        return problems.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
    }

    private struct SpellRow: Decodable {
        var `class`: String
        var property: String
        var kind: String
        var type: String?
        var protocols: [String]?
        var optional: Bool
        var source: String
    }

    private struct DryRunFailure: Decodable {
        var `class`: String
        var property: String
        var message: String
        var source: String
    }

    private func callPrelude<T: Decodable>(_ host: ScriptHost, _ function: String, as type: T.Type) throws -> T {
        guard let prelude = host.module.preludeTable else { throw BMError("the bm module is not installed") }
        return try host.state.withStack { (lua) throws -> T in
            lua.push(prelude)
            lua.push(function)
            try lua.getTable(at: -2)
            try lua.call(arguments: 0, results: 1)
            defer { lua.pop(2) }
            return try lua.decode(T.self, at: -1)
        }
    }

    private func spellReport(_ host: ScriptHost) throws -> [SpellRow] {
        try callPrelude(host, "spell_report", as: [SpellRow].self)
    }

    /// Hooks and preference overrides whose property no Lua class declares.
    private func undeclaredProperties(
        registry: Registry, report: [SpellRow], classes: [String: (superclass: String?, source: String)]
    ) -> [ScriptProblem] {
        var problems: [ScriptProblem] = []
        for entry in registry.entries where entry.kind == .hook || entry.kind == .preferenceOverride {
            guard let property = entry.property else { continue }
            let what = entry.kind == .hook ? "bm.hook" : "bm.preference"
            if let container = entry.container.key?.name {
                guard classes[container] != nil else {
                    problems.append(problem(source: entry.source, .warning,
                        "\(what) names container \(container), which no Lua class declares"))
                    continue
                }
                let declared = report.contains { $0.class == container && $0.property == property
                    && (entry.kind == .hook ? ["lazy", "injectable", "partial"].contains($0.kind) : $0.kind == "preference") }
                if !declared {
                    problems.append(problem(source: entry.source, .warning,
                        "\(what) for \(container).\(property): \(container) declares no \(entry.kind == .hook ? "injected" : "preference") property '\(property)'"))
                }
            } else if !report.contains(where: { $0.property == property }) {
                problems.append(problem(source: entry.source, .warning,
                    "\(what) for property '\(property)': no Lua class declares a spelled property of that name"))
            }
        }
        return problems
    }

    /// Lazy, injectable and partial properties that nothing can serve.
    private func unservable(host: ScriptHost, report: [SpellRow]) -> [ScriptProblem] {
        var problems: [ScriptProblem] = []
        let classes = host.luaClasses
        for row in report where ["lazy", "injectable", "partial"].contains(row.kind) {
            let key = BMModule.typeKey(type: row.type, protocols: row.protocols)
            let container = host.module.container(named: row.class, object: nil)
            switch row.kind {
            case "partial":
                let type = row.type ?? key.name
                let file = host.module.partialPath(for: type)
                if !host.registry.hasTemplateProvider(specificallyFor: key), !host.module.hasPartialFile(for: type) {
                    problems.append(problem(source: row.source, .error,
                        "\(row.class).\(row.property): no template for partial \(type) (no bm.partial and no \(file ?? "partials/\(type).lua"))"))
                }
            default:
                if host.registry.initializerEntry(for: key, in: container) != nil || row.optional { continue }
                if row.kind == "lazy", let type = row.type, classes[type] != nil { continue }
                let fallback = row.kind == "lazy" ? " and no Lua class \(key.name) to construct" : ""
                // A resolver decides at run time: only a warning then.
                let resolvers = host.registry.hasResolvers
                problems.append(problem(source: row.source, resolvers ? .warning : .error,
                    "\(row.class).\(row.property): no initializer for \(key.name) in \(row.class)\(fallback)"
                        + (resolvers ? " (unless a bm.resolver serves it)" : "")))
            }
        }
        return problems
    }

    /// Dependency cycles, found by reading every injected property of a
    /// fresh instance of each class. Other errors of such out-of-context
    /// reads are not reported: an initializer may rightly expect a sender
    /// set up by the app.
    private func dryRun(_ host: ScriptHost) throws -> [ScriptProblem] {
        let failures = try callPrelude(host, "dry_run", as: [DryRunFailure].self)
        var seen: Set<String> = []
        return failures.compactMap { failure in
            let error = LuaError(.runtime, failure.message)
            guard error.reason.contains("dependency cycle:"), seen.insert(error.reason).inserted else { return nil }
            if let chunk = error.chunk, let line = error.line {
                return ScriptProblem(file: chunk, line: line, severity: .error, message: error.reason)
            }
            return problem(source: failure.source, .error, "\(failure.class).\(failure.property): \(failure.message)")
        }
    }

    private func problem(source: String?, _ severity: ScriptProblem.Severity, _ message: String) -> ScriptProblem {
        let parsed = source.flatMap { LuaError.parseLocation($0 + ":") }
        return ScriptProblem(file: parsed?.0 ?? source ?? "?", line: parsed?.1 ?? 0, severity: severity, message: message)
    }

    private func problem(_ chunk: String?, _ line: Int?, _ severity: ScriptProblem.Severity, _ message: String, fallback: String) -> ScriptProblem {
        guard let chunk, let line else { return ScriptProblem(file: "?", line: 0, severity: severity, message: fallback) }
        return ScriptProblem(file: chunk, line: line, severity: severity, message: message)
    }
}
