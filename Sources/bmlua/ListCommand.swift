import ArgumentParser
import BloodMagicLua
import Foundation

/// `bmlua list DIR`: a table of every registration the scripts make.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the registrations that startup scripts make.",
        discussion: """
            Examples:
              bmlua list Scripts
              bmlua list --format json Scripts
            """
    )

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Argument(help: ArgumentHelp("The scripts directory.", valueName: "DIR"))
    var directory: String

    struct Row: Encodable {
        var kind: String
        var type: String?
        var protocols: [String]?
        var container: String?
        var scope: String?
        var property: String?
        var source: String
    }

    func run() throws {
        let host = try ScriptChecker.inspectionHost(scriptsDirectory: directory)
        do throws(ScriptLoadError) {
            try host.loadStartupScripts()
        } catch {
            ErrorReporter().report(error)
            throw ExitCode.failure
        }
        let rows = host.registry.entries
            .filter { !$0.source.hasSuffix("/partials") }
            .map { entry in
                Row(kind: ScriptHost.luaKind(entry.kind), type: entry.type?.protocols == nil ? entry.type?.name : nil,
                    protocols: entry.type?.protocols, container: entry.container.key?.name,
                    scope: entry.scope?.rawValue, property: entry.property, source: entry.source)
            }
        switch format {
        case .json:
            print(try JSONFormatting.encode(rows))
        case .text:
            let header = ["KIND", "TYPE", "CONTAINER", "SCOPE", "SOURCE"]
            let table = rows.map { row -> [String] in
                var type = row.protocols.map { "any " + $0.joined(separator: " & ") } ?? row.type ?? ""
                if let property = row.property { type = type.isEmpty ? "." + property : type + " ." + property }
                return [row.kind, type, row.container ?? "*", row.scope ?? "-", row.source]
            }
            let widths = (0..<header.count).map { column in
                ([header] + table).map { $0[column].count }.max() ?? 0
            }
            let style = TerminalStyle(for: STDOUT_FILENO)
            func line(_ cells: [String]) -> String {
                cells.enumerated().map { index, cell in
                    index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }.joined(separator: "  ")
            }
            print(style.bold(line(header)))
            for row in table { print(line(row)) }
        }
    }
}
