import ArgumentParser
import BloodMagicLua
import Foundation

/// `bmlua check [--manifest app.json] DIR|FILES...`: reports every problem in startup scripts.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Load startup scripts in a fresh host and report every problem.",
        discussion: """
            Reports syntax and load errors (in startup scripts, partials/ templates and \
            modules), unknown and missing fields (at the field's line), shadowed \
            registrations, a class name declared twice, hooks, preferences and \
            initializers naming containers or properties nobody declares, spelled \
            properties nothing can serve, and what a dry run finds: initializers that \
            fail, return nil for a non-optional property, never end, return the wrong \
            type, or form a dependency cycle. One `file:line: severity: message` per \
            line; a file that is fine is not mentioned. Exit 0 when clean, 1 on problems.

            With --manifest (written by the app: ScriptHost.manifest(), e.g. \
            `feedreader --write-manifest app.json`), the check sees the app's Swift \
            containers, exposed types, globals and Swift registrations. Without it, \
            names the scripts use that nothing they define comes close to (a class or \
            container the app may define) are not findings: one note on standard error \
            lists them. Scripts' print goes to standard error.

            Examples:
              bmlua check Scripts
              bmlua check --manifest app.json Scripts
              bmlua check --format github --manifest app.json Scripts   # CI annotations
              bmlua check --format json Scripts/10-network.lua Scripts/20-ui.lua
              bmlua check --watch Scripts                               # again on every change
            """
    )

    @Option(help: "Output format: text, json, or github (workflow commands that annotate the lines in a GitHub Actions log).")
    var format: CheckOutputFormat = .text

    @Option(help: ArgumentHelp("The app's manifest (JSON), written by ScriptHost.manifest().", valueName: "FILE"))
    var manifest: String?

    @Option(name: .customLong("max-instructions"), help: ArgumentHelp(
        "The instruction budget of each file's loading and of each dry-run step (default: 50000000).", valueName: "N"))
    var maxInstructions: Int?

    @Option(name: .customLong("max-memory"), help: ArgumentHelp(
        "Cap the inspecting state's memory, e.g. 512M, 1G (default: 256M; tens of thousands of files need more).",
        valueName: "SIZE"))
    var maxMemory: String?

    @Flag(help: "Check again each time a Lua file below DIR (or one of the FILES) changes; Ctrl-C ends.")
    var watch = false

    @Argument(help: ArgumentHelp("A scripts directory, or script files.", valueName: "DIR|FILES"))
    var paths: [String]

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give a scripts directory or script files to check") }
        try ScriptPathArguments.validate(paths)
        if let maxInstructions, maxInstructions <= 0 {
            throw ValidationError("--max-instructions: must be a positive number, got \(maxInstructions)")
        }
        if let maxMemory, LuaLimits.parseSize(maxMemory) == nil {
            throw ValidationError("--max-memory: '\(maxMemory)' is not a size (use e.g. 512M, 1G or a byte count)")
        }
        if let manifest, !FileManager.default.fileExists(atPath: manifest) {
            throw ValidationError("--manifest: no such file: \(manifest)")
        }
    }

    func run() throws {
        guard watch else {
            if try !checkOnce() { throw ExitCode.failure }
            return
        }
        try WatchSession().run(watching: watchTargets) {
            _ = try? checkOnce()
            return watchTargets
        }
    }

    /// What `--watch` watches: every directory below DIR (any `*.lua`), or the FILES.
    private var watchTargets: WatchTargets {
        if let directory = ScriptPathArguments.directory(in: paths) { return WatchTargets(luaTrees: [directory]) }
        return WatchTargets(files: paths)
    }

    /// Checks once and prints the findings; false when there were any (or
    /// the check could not run).
    private func checkOnce() throws -> Bool {
        var limits = ScriptChecker.inspectionLimits
        if let maxInstructions { limits.maxInstructions = maxInstructions }
        if let size = maxMemory.flatMap(LuaLimits.parseSize) { limits.maxMemory = size }
        let report: ScriptCheckReport
        do {
            let checker = ScriptChecker(manifest: try manifest.map(AppManifest.read(from:)))
            if let directory = ScriptPathArguments.directory(in: paths) {
                report = try checker.report(directory: directory, limits: limits)
            } else {
                report = try checker.report(files: paths, limits: limits)
            }
        } catch {
            ErrorReporter().report(LuaError(.io, String(describing: error)))
            return false
        }
        let problems = report.problems
        // What the check could not see is not a finding: a note on standard
        // error, so that the findings (and JSON) on standard output stay
        // empty for scripts that are clean as far as the check can tell.
        if let note = report.uncheckedNote() { FileHandle.standardError.write(Data((note + "\n").utf8)) }
        switch format {
        case .text:
            let style = TerminalStyle(for: STDOUT_FILENO)
            for problem in problems {
                let severity = problem.severity == .error ? style.red("error") : style.yellow("warning")
                print("\(problem.file):\(problem.line): \(severity): \(problem.message)")
            }
        case .json:
            print(try JSONFormatting.encode(problems))
        case .github:
            for problem in problems { print(GitHubAnnotation.line(for: problem)) }
        }
        if watch && problems.isEmpty && format == .text { print("no problems") }
        return problems.isEmpty
    }
}

/// How `check` prints its findings.
enum CheckOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, github
}

/// GitHub Actions workflow commands: `::error file=…,line=…::message`, one
/// per finding, which annotate the lines in the run's log and the diff.
enum GitHubAnnotation {
    static func line(for problem: ScriptProblem) -> String {
        var properties = "file=\(escapeProperty(problem.file))"
        if problem.line > 0 { properties += ",line=\(problem.line)" }
        return "::\(problem.severity.rawValue) \(properties)::\(escapeData(problem.message))"
    }

    /// A message: `%`, CR and LF escaped, as the runner expects.
    static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// A property value: also `:` and `,`.
    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}

/// How `list` prints its results.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// Pretty, key-sorted JSON for the `--format json` outputs.
enum JSONFormatting {
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
