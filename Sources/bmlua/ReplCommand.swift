import ArgumentParser
import BloodMagicLua
import Foundation

/// `bmlua repl`: an interactive prompt, as `lua` gives with no script.
struct ReplCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: "Start an interactive prompt (also what a bare `bmlua` does on a terminal)."
    )

    @OptionGroup var host: HostOptions

    func run() throws {
        let scriptHost = try host.makeHost()
        guard host.loadStartupScripts(into: scriptHost, reporter: ErrorReporter()) else {
            throw ExitCode.failure
        }
        Repl(state: scriptHost.state).run()
    }
}

/// The read-eval-print loop over a state: prompts `> ` and `>> `, prints
/// values, survives errors, and stops at the end of input.
struct Repl {
    let state: LuaState

    func run() {
        let session = LuaInteractiveSession(state: state)
        let editor = LineEditor()
        let reporter = ErrorReporter()
        if editor.isTerminal {
            print("bmlua \(BMLua.version) (Lua 5.4) — Ctrl-D to exit")
        }
        while true {
            let line: String?
            do {
                line = try editor.readLine(prompt: session.isContinuing ? ">> " : "> ")
            } catch {
                session.cancel()
                continue
            }
            guard let line else { break }
            editor.remember(line)
            switch session.feed(line) {
            case .needsMore:
                continue
            case .values(let values):
                if !values.isEmpty { print(values.joined(separator: "\t")) }
            case .failure(let error):
                reporter.report(error)
            }
            fflush(nil)
        }
        // Input that ended inside an unfinished chunk is reported, as lua does.
        if let error = session.finish() { reporter.report(error) }
    }
}
