import ArgumentParser
import BloodMagicLua
import Foundation

/// `bmlua resolve TYPE`: runs the most specific initializer and prints the value.
struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Resolve a type through the registry and print the value.",
        discussion: """
            Tables are pretty-printed; userdata shows its type name.

            Examples:
              bmlua resolve RequestManager --scripts Scripts
              bmlua resolve Loader --container UsersViewController --scripts Scripts
            """
    )

    @Argument(help: "The type name to resolve.")
    var type: String

    @Option(help: ArgumentHelp("Resolve for this container type.", valueName: "C"))
    var container: String?

    @OptionGroup var host: HostOptions

    func run() throws {
        let scriptHost = try host.makeHost()
        let reporter = ErrorReporter()
        guard host.loadStartupScripts(into: scriptHost, reporter: reporter) else { throw ExitCode.failure }
        do throws(LuaError) {
            let text = try scriptHost.state.withStack { (lua) throws(LuaError) -> String in
                lua.pushRawGlobal("bm")
                lua.push("resolve")
                try lua.getTable(at: -2)
                lua.push(type)
                if let container {
                    ["container": container].push(onto: lua)
                    try lua.call(arguments: 2, results: 1)
                } else {
                    try lua.call(arguments: 1, results: 1)
                }
                defer { lua.pop(2) }
                return try LuaPrettyPrinter().render(at: -1, in: lua)
            }
            print(text)
        } catch {
            reporter.report(error)
            throw ExitCode.failure
        }
    }
}
