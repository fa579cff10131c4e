import ArgumentParser
import BloodMagicLua
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

    @Flag(help: ArgumentHelp(
        "Run the script again, in a fresh state, each time it, a startup script or a module it requires changes; Ctrl-C ends."))
    var watch = false

    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("The script to run (`-` for standard input), then its arguments.", valueName: "script"))
    var scriptAndArguments: [String] = []

    func validate() throws {
        // `bmlua --bogus` is a mistyped option, not a script named --bogus
        // (`-` alone is standard input; a script's own options follow it).
        if let first = scriptAndArguments.first, first.hasPrefix("-"), first != "-" {
            throw ValidationError("unknown option '\(first)'")
        }
        if watch {
            guard let script = scriptAndArguments.first, script != "-" else {
                throw ValidationError("--watch needs a script file to run (standard input cannot be run again)")
            }
            if interactive { throw ValidationError("give --watch or -i, not both") }
        }
    }

    func run() throws {
        if watch, let script = scriptAndArguments.first {
            let initial = WatchTargets(luaTrees: host.scripts.map { [$0] } ?? [], files: [script])
            try WatchSession().run(watching: initial) { runWatched(script) }
            return
        }
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
            for action in orderedActions() {
                switch action {
                case .require(let module): try require(module, in: state)
                case .run(let chunk): _ = try state.run(chunk, name: "=(command line)")
                }
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

    /// One round of `--watch`: a fresh host, the startup scripts, `-l`,
    /// `-e` and the script; errors are reported and the watch goes on.
    /// Returns what to watch: the script, the scripts directory and the
    /// modules the round required.
    private func runWatched(_ script: String) -> WatchTargets {
        let reporter = ErrorReporter()
        let scriptTargets = WatchTargets(files: [script])
        let scriptHost: ScriptHost
        do {
            scriptHost = try host.makeHost(scriptPath: script)
        } catch {
            reporter.report(LuaError(.io, String(describing: error)))
            return scriptTargets
        }
        defer { scriptHost.unload() }
        guard host.loadStartupScripts(into: scriptHost, reporter: reporter) else {
            return scriptTargets.union(scriptHost.watchTargets)
        }
        let state = scriptHost.state
        do {
            try state.withStack { (lua) throws(LuaError) in
                lua.setScriptArguments(
                    script: script, arguments: Array(scriptAndArguments.dropFirst()), interpreter: ["bmlua"])
            }
            for action in orderedActions() {
                switch action {
                case .require(let module): try require(module, in: state)
                case .run(let chunk): _ = try state.run(chunk, name: "=(command line)")
                }
            }
            try runScript(script, arguments: Array(scriptAndArguments.dropFirst()), in: state)
        } catch let error as LuaError {
            reporter.report(error)
        } catch {
            reporter.report(LuaError(.runtime, String(describing: error)))
        }
        return scriptTargets.union(scriptHost.watchTargets)
    }

    /// A `-l` or `-e`, in command-line order.
    enum Action: Equatable {
        case require(String)
        case run(String)
    }

    /// The `-l` and `-e` options in the order given, as `lua` runs them.
    /// ArgumentParser keeps each option's values in order but not their
    /// interleaving, so it is read back from the raw arguments; if that does
    /// not agree with what was parsed, modules come first, then code.
    func orderedActions(arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> [Action] {
        var actions: [Action] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" || (!argument.hasPrefix("-") && argument != "run") || argument == "-" { break }
            if (argument == "-e" || argument == "-l"), index + 1 < arguments.count {
                let value = arguments[index + 1]
                actions.append(argument == "-e" ? .run(value) : .require(value))
                index += 2
                continue
            }
            // Options that take a value: skip it.
            if HostOptions.optionsTakingValues.contains(argument) { index += 1 }
            index += 1
        }
        let fallback = modules.map(Action.require) + code.map(Action.run)
        let parsedRequires = actions.compactMap { if case .require(let m) = $0 { m } else { nil } }
        let parsedCode = actions.compactMap { if case .run(let c) = $0 { c } else { nil } }
        return parsedRequires == modules && parsedCode == code ? actions : fallback
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
                try lua.load(script: ScriptFile.readStandardInput(), name: "=stdin")
            } else {
                try lua.loadFile(script)
            }
            try lua.requireSpace(Int32(clamping: arguments.count))
            for argument in arguments { lua.push(argument) }
            try lua.call(arguments: Int32(clamping: arguments.count), results: 0)
        }
    }
}
