import BloodMagicLua
import Foundation

/// The reader's command line: `feedreader [--scripts DIR] [--feeds DIR]
/// [--preferences FILE] [--log-level LEVEL] [--watch [--refresh SECONDS]]`. Parsed by hand
/// on purpose: the example needs
/// nothing beyond `CommandLine.arguments`.
struct CommandLineOptions {
    /// The directory of startup scripts that wire the app.
    var scriptsDirectory: String
    /// The directory the scripts' `feedreader.feedsURL` points at.
    var feedsDirectory: String
    /// A property-list file for the settings; nil keeps them in memory, so
    /// a run never writes the user's own preferences.
    var preferencesFile: String?
    /// `--help`: print the usage and stop.
    var showsHelp = false
    /// `--write-manifest FILE`: write the app's manifest for
    /// `bmlua check --manifest FILE` and stop.
    var manifestFile: String?
    /// `--log-level LEVEL` (else `BMLUA_LOG`): log BloodMagic's resolution
    /// events at LEVEL and above on standard error.
    var logLevel: String?
    /// `--watch`: keep running, reload the scripts when they change, and
    /// refresh the digest every `refreshInterval` seconds.
    var watches = false
    /// `--refresh SECONDS`: how often `--watch` refreshes the digest.
    var refreshInterval = 2.0

    static let usage = """
        usage: feedreader [--scripts DIR] [--feeds DIR] [--preferences FILE] [--log-level LEVEL]
                          [--watch [--refresh SECONDS]]
               feedreader --write-manifest FILE

          --scripts DIR       the Lua startup scripts that wire the app
                              (default: Examples/FeedReader/Scripts)
          --feeds DIR         where the feeds are read from (default: Examples/FeedReader/Feeds)
          --preferences FILE  keep settings in this property-list file (default: in memory)
          --log-level LEVEL   log BloodMagic's resolution events at LEVEL and above on
                              standard error: debug shows which registration served each
                              property (trace, debug, info, notice, warning, error,
                              critical; default: $BMLUA_LOG, else none)
          --write-manifest FILE
                              write the app's manifest (its Swift containers, exposed
                              types and globals) for `bmlua check --manifest FILE`
                              (`-`: standard output), then stop
          --watch             keep running: reload the scripts when one changes, and
                              refresh the digest every few seconds (Ctrl-C stops)
          --refresh SECONDS   how often --watch refreshes the digest (default: 2)
        """

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CommandLineOptions {
        var options = CommandLineOptions(
            scriptsDirectory: defaultDirectory("Scripts"), feedsDirectory: defaultDirectory("Feeds"))
        if let level = environment["BMLUA_LOG"], !level.isEmpty {
            if let problem = DiagnosticLogging.problem(with: level, option: "BMLUA_LOG") {
                throw FeedReaderError("\(problem)\n\(usage)")
            }
            options.logLevel = level
        }
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                options.showsHelp = true
            case "--watch":
                options.watches = true
            case "--refresh":
                guard let value = remaining.popFirst(), let seconds = Double(value), seconds > 0, seconds <= 3600 else {
                    throw FeedReaderError("--refresh needs a number of seconds above 0 and at most 3600\n\(usage)")
                }
                options.refreshInterval = seconds
            case "--scripts", "--feeds", "--preferences", "--write-manifest", "--log-level":
                guard let value = remaining.popFirst() else {
                    throw FeedReaderError("\(argument) needs a value\n\(usage)")
                }
                switch argument {
                case "--scripts": options.scriptsDirectory = value
                case "--feeds": options.feedsDirectory = value
                case "--write-manifest": options.manifestFile = value
                case "--log-level":
                    if let problem = DiagnosticLogging.problem(with: value, option: "--log-level") {
                        throw FeedReaderError("\(problem)\n\(usage)")
                    }
                    options.logLevel = value
                default: options.preferencesFile = value
                }
            default:
                throw FeedReaderError("unknown argument '\(argument)'\n\(usage)")
            }
        }
        return options
    }

    /// `Examples/FeedReader/<name>` next to these sources when they are
    /// still there (a build from a checkout), else under the current directory.
    static func defaultDirectory(_ name: String) -> String {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let besideSources = example.appendingPathComponent(name).path
        if FileManager.default.fileExists(atPath: besideSources) { return besideSources }
        return "Examples/FeedReader/\(name)"
    }
}
