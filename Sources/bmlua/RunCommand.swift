import ArgumentParser
import BloodMagic
import Foundation

/// `bmlua [options] [script [args...]]`: runs `-l` modules, `-e` code, then
/// a script file or standard input (`-`), then the prompt with `-i`.
/// With nothing to run it starts the prompt on a terminal, and runs standard
/// input when it is piped, as `lua` does.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a script (the default when no subcommand is given)."
    )

    @OptionGroup var host: HostOptions

    @Option(name: .customShort("e"), help: ArgumentHelp("Run CODE before the script (repeatable).", valueName: "CODE"))
    var code: [String] = []

    @Option(name: .customShort("l"), help: ArgumentHelp("Require MODULE into the global of the same name, or g=MODULE into g (repeatable).", valueName: "MODULE"))
    var modules: [String] = []

    @Flag(name: .customShort("i"), help: "Enter the interactive prompt after running the script.")
    var interactive = false

    @Flag(name: .customShort("v"), help: "Print the version.")
    var showVersion = false

    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("The script to run (`-` for standard input), then its arguments.", valueName: "script"))
    var scriptAndArguments: [String] = []

    func run() throws {
        if showVersion {
            print("bmlua \(BMLua.version) (Lua 5.4)")
            if code.isEmpty && scriptAndArguments.isEmpty && modules.isEmpty && !interactive { return }
        }
        let script = scriptAndArguments.first
        let scriptHost = try host.makeHost(scriptPath: script)
        let state = scriptHost.state
        let reporter = ErrorReporter()
        guard host.loadStartupScripts(into: scriptHost, reporter: reporter) else {
            throw ExitCode.failure
        }
        do {
            try state.withStack { (lua) throws(LuaError) in
                lua.setScriptArguments(
                    script: script ?? "bmlua", arguments: Array(scriptAndArguments.dropFirst()),
                    interpreter: ["bmlua"])
            }
            for module in modules {
                try require(module, in: state)
            }
            for chunk in code {
                _ = try state.run(chunk, name: "=(command line)")
            }
            if let script {
                try runScript(script, arguments: Array(scriptAndArguments.dropFirst()), in: state)
            } else if code.isEmpty && modules.isEmpty && !interactive && !showVersion {
                if isatty(STDIN_FILENO) != 0 {
                    Repl(state: state).run()
                    return
                }
                try runScript("-", arguments: [], in: state)
            }
        } catch let error as LuaError {
            reporter.report(error)
            throw ExitCode.failure
        }
        if interactive {
            Repl(state: state).run()
        }
    }

    /// `-l g=mod`: `g = require("mod")`; `-l mod`: `mod = require("mod")`.
    private func require(_ spec: String, in state: LuaState) throws {
        let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
        let (global, module) = parts.count == 2 ? (parts[0], parts[1]) : (spec, spec)
        try state.withStack { (lua) throws(LuaError) in
            lua.pushRawGlobal("require")
            lua.push(module)
            try lua.call(arguments: 1, results: 1)
            lua.setRawGlobal(global)
        }
    }

    private func runScript(_ script: String, arguments: [String], in state: LuaState) throws {
        try state.withStack { (lua) throws(LuaError) in
            if script == "-" {
                let input = FileHandle.standardInput.readDataToEndOfFile()
                try lua.load(bytes: [UInt8](input), name: "=stdin")
            } else {
                try lua.loadFile(script)
            }
            for argument in arguments { lua.push(argument) }
            try lua.call(arguments: Int32(arguments.count), results: 0)
        }
    }
}
