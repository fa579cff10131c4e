import ArgumentParser
import BloodMagicLua
import Foundation

/// `bmlua check DIR|FILES...`: reports every problem in startup scripts.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Load startup scripts in a fresh host and report every problem.",
        discussion: """
            Reports syntax and load errors, unknown fields and missing `init`, shadowed \
            registrations, hooks and preferences for properties no Lua class declares, \
            spelled properties nothing can serve, and dependency cycles (found by reading \
            each class's injected properties in a dry run). One `file:line: severity: message` \
            per line; a file that is fine is not mentioned. Exit 0 when clean, 1 on problems.

            Examples:
              bmlua check Scripts
              bmlua check --format json Scripts/10-network.lua Scripts/20-ui.lua
            """
    )

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Argument(help: ArgumentHelp("A scripts directory, or script files.", valueName: "DIR|FILES"))
    var paths: [String]

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give a scripts directory or script files to check") }
        var isDirectory: ObjCBool = false
        for path in paths where !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            throw ValidationError("no such file or directory: \(path)")
        }
        if paths.count > 1, paths.contains(where: { path in
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
        }) {
            throw ValidationError("give one directory, or script files, not both")
        }
    }

    func run() throws {
        var isDirectory: ObjCBool = false
        let checker = ScriptChecker()
        let problems: [ScriptProblem]
        do {
            if paths.count == 1, FileManager.default.fileExists(atPath: paths[0], isDirectory: &isDirectory), isDirectory.boolValue {
                problems = try checker.check(directory: paths[0])
            } else {
                problems = try checker.check(files: paths)
            }
        } catch {
            ErrorReporter().report(LuaError(.io, String(describing: error)))
            throw ExitCode.failure
        }
        switch format {
        case .text:
            let style = TerminalStyle(for: STDOUT_FILENO)
            for problem in problems {
                let severity = problem.severity == .error ? style.red("error") : style.yellow("warning")
                print("\(problem.file):\(problem.line): \(severity): \(problem.message)")
            }
        case .json:
            print(try JSONFormatting.encode(problems))
        }
        if !problems.isEmpty { throw ExitCode.failure }
    }
}

/// How a command prints its results.
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
