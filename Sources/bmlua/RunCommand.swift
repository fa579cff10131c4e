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
        "Run the script again, in a fresh state, each time it, a startup script or a module it requires changes (startup scripts that would fail are refused: the previous wiring stays); Ctrl-C ends."))
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
            let session = WatchedHost()
            defer { session.host?.unload() }
            try WatchSession().run(watching: initial) { runWatched(script, session: session) }
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

    /// One round of `--watch`: the startup scripts, `-l`, `-e` and the
    /// script, in a fresh state; errors are reported and the watch goes on.
    /// Returns what to watch: the script, the scripts directory and the
    /// modules the round required.
    ///
    /// With `--scripts`, once the startup scripts have loaded, later rounds
    /// reload them into the same host (``ScriptHost/reload()-6v5ua``: a fresh
    /// state), which first resolves every injected property of every Lua
    /// class through the new wiring, as `bmlua check`'s dry run does. Scripts
    /// that would fail are refused: their errors are reported with their
    /// positions, the previous wiring stays, and the script is not run again
    /// until a change fixes them.
    private func runWatched(_ script: String, session: WatchedHost) -> WatchTargets {
        let reporter = ErrorReporter()
        let scriptTargets = WatchTargets(files: [script])
        let scriptHost: ScriptHost
        if let kept = session.host {
            do {
                try kept.reload()
            } catch {
                reporter.report(error)
                reporter.note("the startup scripts were not reloaded: the previous wiring stays in force, and \(script) runs again once they are fixed")
                return scriptTargets.union(kept.watchTargets)
            }
            scriptHost = kept
        } else {
            do {
                scriptHost = try host.makeHost(scriptPath: script, validatingLuaClasses: true)
            } catch {
                reporter.report(LuaError(.io, String(describing: error)))
                return scriptTargets
            }
            guard host.loadStartupScripts(into: scriptHost, reporter: reporter) else {
                scriptHost.unload()
                return scriptTargets.union(scriptHost.watchTargets)
            }
            // Later rounds reload these scripts, validated, into this host.
            if host.scripts != nil { session.host = scriptHost }
        }
        defer { if session.host !== scriptHost { scriptHost.unload() } }
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

    /// The host a `--watch` session with `--scripts` keeps from one round to
    /// the next (rounds run one at a time, on the session's thread).
    final class WatchedHost {
        var host: ScriptHost?
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
