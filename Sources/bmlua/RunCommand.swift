import ArgumentParser
import BloodMagic
import Foundation

/// `bmlua [options] [script [args...]]`: runs code from `-e`, a file, or stdin.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a script (the default when no subcommand is given)."
    )

    @OptionGroup var host: HostOptions

    @Option(name: .customShort("e"), help: ArgumentHelp("Run CODE before the script (repeatable).", valueName: "CODE"))
    var code: [String] = []

    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("The script to run (`-` for standard input), then its arguments.", valueName: "script"))
    var scriptAndArguments: [String] = []

    func run() throws {
        let state = try host.makeState()
        let reporter = ErrorReporter()
        do {
            for chunk in code {
                _ = try state.run(chunk, name: "=(command line)")
            }
            guard let script = scriptAndArguments.first else {
                if code.isEmpty {
                    throw ValidationError("no script given: pass a file, `-` for standard input, or -e CODE")
                }
                return
            }
            let arguments = Array(scriptAndArguments.dropFirst())
            try state.withStack { (lua) throws(LuaError) in
                lua.setScriptArguments(script: script, arguments: arguments, interpreter: ["bmlua"])
                if script == "-" {
                    let input = FileHandle.standardInput.readDataToEndOfFile()
                    try lua.load(bytes: [UInt8](input), name: "=stdin")
                } else {
                    try lua.loadFile(script)
                }
                for argument in arguments { lua.push(argument) }
                try lua.call(arguments: Int32(arguments.count), results: 0)
            }
        } catch let error as LuaError {
            reporter.report(error)
            throw ExitCode.failure
        }
    }
}
