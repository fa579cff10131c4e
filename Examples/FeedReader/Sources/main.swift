// feedreader: a command-line feed reader whose wiring lives entirely in
// Lua startup scripts (Examples/FeedReader/Scripts). Change a script and
// rerun: no recompiling. Or run it with --watch, and change a script while
// it runs.
import BloodMagicLua
import Foundation

/// Prints `message` on standard error, prefixed with the program name.
func report(_ message: String) {
    FileHandle.standardError.write(Data("feedreader: \(message)\n".utf8))
}

let options: CommandLineOptions
do {
    options = try CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    report("\(error)")
    exit(2)
}
if options.showsHelp {
    print(CommandLineOptions.usage)
    exit(0)
}
if let manifestFile = options.manifestFile {
    do {
        try ScriptWiring.writeManifest(to: manifestFile)
        exit(0)
    } catch {
        report("\(error)")
        exit(1)
    }
}

// Resolution events (which registration served which property, singletons,
// hooks, preferences, script loads) on standard error, at debug level.
if let level = options.logLevel {
    Registry.shared.logger = DiagnosticLogging.logger(program: "feedreader", level: level)
}

let store: any PreferenceStore = options.preferencesFile.map {
    PropertyListFilePreferenceStore(fileURL: URL(fileURLWithPath: $0))
} ?? InMemoryPreferenceStore()

let host: ScriptHost
do {
    host = try ScriptWiring.load(
        scriptsDirectory: options.scriptsDirectory, feedsDirectory: options.feedsDirectory,
        preferences: store, registry: .shared)
} catch let error as ScriptLoadError {
    // One line per failing file, each `file:line: message`.
    for failure in error.failures { report(failure.message) }
    exit(1)
} catch {
    report("\(error)")
    exit(1)
}

let app = FeedReaderApp()
do {
    let scripts = try host.startupScripts().map { ($0 as NSString).lastPathComponent }
    try app.run(scripts: scripts, store: options.preferencesFile.map { "in \($0)" } ?? "in memory")
} catch {
    report("\(error)")
    exit(1)
}
if options.watches {
    // Keep running: the scripts reload on change, the digest refreshes.
    do {
        try LiveWiring(host: host, app: app, options: options).run()
    } catch {
        report("\(error)")
        exit(1)
    }
}
