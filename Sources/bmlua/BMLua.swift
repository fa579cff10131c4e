import ArgumentParser
import BloodMagicLua
import Foundation

/// `bmlua`: runs, checks and lists Lua scripts against BloodMagic's registry,
/// the way `lua` runs scripts.
@main
struct BMLua: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "bmlua",
        abstract: "Run, check and list Lua scripts with BloodMagic's spells, in a sandboxed Lua 5.4.",
        discussion: """
            Examples:
              bmlua hello.lua Ada            run a script (arguments in `arg`)
              bmlua -e 'print(1 + 1)'        run a string (repeatable)
              echo 'print(1)' | bmlua -      run standard input
              bmlua --scripts Scripts a.lua  load startup scripts, then a.lua
              bmlua -i script.lua            run, then stay in the prompt
              bmlua repl                     interactive prompt
              bmlua check Scripts            report problems in startup scripts
              bmlua list Scripts             list their registrations
              bmlua resolve Cache --scripts Scripts
              bmlua explain Loader --container UsersViewController --scripts Scripts
              BMLUA_LOG=debug bmlua app.lua  log which registration served what
              bmlua types -o .bmlua/types     editor annotations for the bm API
              bmlua --max-instructions 1000000 -e 'while true do end'
            """,
        version: "bmlua \(version) (Lua 5.4)",
        subcommands: [
            RunCommand.self, ReplCommand.self, CheckCommand.self, ListCommand.self, ResolveCommand.self, ExplainCommand.self,
            TypesCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )

    /// Parses and runs, with usage errors exiting 2 (not ArgumentParser's 64),
    /// script errors 1, and success 0.
    static func main() {
        // BMLUA_LOG=LEVEL turns the registry's resolution events on in every subcommand.
        if let level = ProcessInfo.processInfo.environment["BMLUA_LOG"], !level.isEmpty {
            if let problem = DiagnosticLogging.problem(with: level, option: "BMLUA_LOG") {
                FileHandle.standardError.write(Data("Error: \(problem)\nUsage: bmlua [<options>] [<script> [<arguments> ...]]\n".utf8))
                Foundation.exit(2)
            }
            DiagnosticLogging.bootstrap(program: "bmlua", level: level)
        }
        let arguments = CommandLineShape.hoistingHostOptions(Array(CommandLine.arguments.dropFirst()))
        if CommandLineShape.asksForTopLevelHelp(arguments) {
            print(CommandLineShape.topLevelHelp(), terminator: "")
            return
        }
        do {
            var command = try parse(arguments)
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = fullMessage(for: error)
                FileHandle.standardError.write(Data((message + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }

    /// `parseAsRoot`, with a long run of trailing words (tens of thousands
    /// of script arguments or files to check) appended after the parser has
    /// read the rest: see ``CommandLineShape/splittingTrailingWords(_:threshold:)``.
    static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        let (parsed, trailing) = CommandLineShape.splittingTrailingWords(arguments)
        // What is left goes to the parser, whose time is quadratic in it
        // (repeated options too): a usage error past a bound no one types.
        guard parsed.count <= CommandLineShape.maxParsedArguments else {
            throw ValidationError(
                "too many options and arguments (\(parsed.count)) before the last run of plain words: at most "
                    + "\(CommandLineShape.maxParsedArguments); put the script's arguments or the files to check last")
        }
        var command = try parseAsRoot(parsed)
        guard let first = trailing.first else { return command }
        guard var receiver = command as? any TrailingWords else {
            // A command that takes no list: the parser says what is wrong
            // with the first word too many.
            _ = try parseAsRoot(parsed + [first])
            throw ValidationError("unexpected argument '\(first)'")
        }
        receiver.appendTrailingWords(trailing)
        command = receiver
        try command.validate()
        return command
    }
}
