import ArgumentParser
import Foundation

/// What bmlua does to its raw arguments before ArgumentParser reads them.
///
/// - Host options may come before a subcommand, as `git -C dir status`
///   allows: `bmlua --max-memory 16M repl` is `bmlua repl --max-memory 16M`.
/// - `bmlua --help` (and `-h`, and a bare `bmlua help`) shows the run
///   options beside the subcommands, since running is what a bare `bmlua` does.
enum CommandLineShape {
    /// The subcommands' names, as typed.
    static var subcommandNames: Set<String> {
        Set(BMLua.configuration.subcommands.compactMap { $0.configuration.commandName })
    }

    /// Moves leading host options behind the subcommand that follows them.
    /// Arguments that do not start with host options and a subcommand come
    /// back unchanged.
    static func hoistingHostOptions(_ arguments: [String]) -> [String] {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if HostOptions.flags.contains(argument) || HostOptions.optionsTakingValues.contains(where: { argument.hasPrefix($0 + "=") }) {
                index += 1
            } else if HostOptions.optionsTakingValues.contains(argument), index + 1 < arguments.count {
                index += 2
            } else {
                break
            }
        }
        guard index > 0, index < arguments.count, subcommandNames.contains(arguments[index]) else { return arguments }
        return [arguments[index]] + arguments[..<index] + arguments[(index + 1)...]
    }

    /// The most arguments given to ArgumentParser (what is left once the
    /// trailing words are split off): it reads 1,000 in a fraction of a
    /// second, 8,000 in half a minute.
    static let maxParsedArguments = 1024

    /// A long trailing run of plain words (a script's arguments, the files
    /// to check), split off so that ArgumentParser reads only its start:
    /// `parsed` for the parser, `trailing` to append to the command's list
    /// afterwards (see ``TrailingWords``).
    ///
    /// ArgumentParser's time grows with the square of the positional words
    /// (it removes each word it reads from its list one at a time, and
    /// merges the origins of an array's values one value at a time): 20,000
    /// script arguments took 90 seconds. Words at the end that do not start
    /// with `-` are positionals, except that the first of them may be the
    /// value of the option before it; so the parser is given the first two
    /// (and a subcommand's name before them) and reads them as it would have,
    /// and the rest are positionals after them. Runs of at most `threshold`
    /// words are left to the parser. Linear in the arguments.
    static func splittingTrailingWords(_ arguments: [String], threshold: Int = 64) -> (parsed: [String], trailing: [String]) {
        var start = arguments.count
        while start > 0, !arguments[start - 1].hasPrefix("-") { start -= 1 }
        if start == 0, let first = arguments.first {
            if first == "help" { return (arguments, []) }
            if subcommandNames.contains(first) { start = 1 }
        }
        let cut = start + 2
        guard arguments.count - cut > threshold else { return (arguments, []) }
        return (Array(arguments[..<cut]), Array(arguments[cut...]))
    }

    /// Whether the arguments ask for the top-level help.
    static func asksForTopLevelHelp(_ arguments: [String]) -> Bool {
        arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"]
    }

    /// The top-level help: the overview and examples, how to run a script
    /// with every run option, and the subcommands.
    static func topLevelHelp(columns: Int? = nil) -> String {
        let root = BMLua.helpMessage(columns: columns)
        let run = BMLua.helpMessage(for: RunCommand.self, columns: columns)
        let usage = "USAGE: bmlua [<options>] [<script> [<arguments> ...]]\n       bmlua <subcommand> [<options>]"
        let runSections = sections(of: run).filter { $0.hasPrefix("ARGUMENTS:") || $0.hasPrefix("OPTIONS:") }
        var out: [String] = []
        for section in sections(of: root) {
            if section.hasPrefix("USAGE:") {
                out.append(usage)
                out.append(contentsOf: runSections)
            } else if !section.hasPrefix("OPTIONS:") {
                out.append(section)
            }
        }
        return out.joined(separator: "\n\n") + "\n"
    }

    /// A help text's sections: blank-line-separated chunks, each starting
    /// at a heading in capitals (`OVERVIEW:`, `USAGE:`, `OPTIONS:` …); other
    /// chunks (the discussion, closing notes) stay with the section before.
    private static func sections(of help: String) -> [String] {
        var sections: [String] = []
        for chunk in help.components(separatedBy: "\n\n") where !chunk.isEmpty {
            let heading = chunk.prefix { $0 != ":" && $0 != "\n" }
            let isHeading = !heading.isEmpty && chunk.dropFirst(heading.count).hasPrefix(":")
                && heading.allSatisfy { $0.isUppercase || $0 == " " }
            if isHeading || sections.isEmpty {
                sections.append(chunk)
            } else {
                sections[sections.count - 1] += "\n\n" + chunk
            }
        }
        return sections.map { $0.trimmingCharacters(in: .newlines) }
    }
}

/// A command whose last positional argument is a list that words split off
/// by ``CommandLineShape/splittingTrailingWords(_:threshold:)`` belong to.
protocol TrailingWords: ParsableCommand {
    /// Appends `words` to the list, after the words parsed.
    mutating func appendTrailingWords(_ words: [String])
}

extension RunCommand: TrailingWords {
    mutating func appendTrailingWords(_ words: [String]) { scriptAndArguments += words }
}

extension CheckCommand: TrailingWords {
    mutating func appendTrailingWords(_ words: [String]) { paths += words }
}
