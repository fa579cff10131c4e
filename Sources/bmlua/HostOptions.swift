import ArgumentParser
import BloodMagicLua
import Foundation

/// Options that shape the Lua state: libraries and limits.
struct HostOptions: ParsableArguments {
    @Option(name: .customLong("max-instructions"), help: ArgumentHelp("Stop a run after N VM instructions.", valueName: "N"))
    var maxInstructions: Int?

    @Option(name: .customLong("max-memory"), help: ArgumentHelp("Cap the state's memory, e.g. 16M, 512K, 1G.", valueName: "SIZE"))
    var maxMemory: String?

    @Option(name: .customLong("max-time"), help: ArgumentHelp("Stop a run after SECONDS of wall-clock time (e.g. 2 or 0.5).", valueName: "SECONDS"))
    var maxTime: Double?

    @Flag(help: "Open the full standard library (io, os, package, debug).")
    var unsafe = false

    @Option(help: ArgumentHelp("Load every *.lua in DIR as startup scripts first; `require` looks there.", valueName: "DIR"))
    var scripts: String?

    @Option(help: ArgumentHelp("Keep preferences in this property-list file (default: in memory, for this run only).", valueName: "PATH"))
    var preferences: String?

    @Option(name: .customLong("user-defaults"), help: ArgumentHelp(
        "Keep preferences in the platform's user defaults of DOMAIN (on Linux $XDG_CONFIG_HOME/DOMAIN.plist).",
        valueName: "DOMAIN"))
    var userDefaults: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp(
        "Log the registry's resolution events at LEVEL and above on standard error: debug shows which registration served each property, singletons, hooks, preferences and script loads (trace, debug, info, notice, warning, error, critical; also BMLUA_LOG).",
        valueName: "LEVEL"))
    var logLevel: String?

    /// The options above that take a value, by their command-line names.
    /// `RunCommand.orderedActions` skips their values when it reads the raw
    /// arguments; a new `@Option` here belongs in this list too (a test
    /// checks it against the help text).
    static let optionsTakingValues = [
        "--max-instructions", "--max-memory", "--max-time", "--scripts", "--preferences", "--user-defaults", "--log-level",
    ]

    /// The options above that take no value, by their command-line names
    /// (they may come before a subcommand, like the ones with values).
    static let flags = ["--unsafe"]

    func validate() throws {
        if preferences != nil && userDefaults != nil {
            throw ValidationError("give --preferences or --user-defaults, not both")
        }
        if preferences?.isEmpty == true {
            throw ValidationError("--preferences: give the path of a property-list file")
        }
        if let preferences, let problem = PropertyListFilePreferenceStore.fileProblem(atPath: preferences) {
            throw ValidationError("--preferences: \(preferences) \(problem)")
        }
        if let userDefaults, !PreferenceSuiteName.isValid(userDefaults) {
            throw ValidationError("--user-defaults: '\(userDefaults)' is not a domain name (use e.g. com.example.app)")
        }
        if let logLevel, let problem = DiagnosticLogging.problem(with: logLevel, option: "--log-level") {
            throw ValidationError(problem)
        }
        if let maxMemory, LuaLimits.parseSize(maxMemory) == nil {
            throw ValidationError("--max-memory: '\(maxMemory)' is not a size (use e.g. 16M, 512K, 1G or a byte count)")
        }
        if let maxInstructions, maxInstructions <= 0 {
            throw ValidationError("--max-instructions: must be a positive number, got \(maxInstructions)")
        }
        if let maxTime, !(maxTime > 0 && maxTime <= HostOptions.longestMaxTime) {
            throw ValidationError("--max-time: must be a number of seconds above 0 and at most \(Int(HostOptions.longestMaxTime)), got \(maxTime)")
        }
    }

    /// The largest `--max-time` accepted (a year, in seconds).
    static let longestMaxTime: Double = 365 * 24 * 3600

    /// The limits these options ask for.
    var limits: LuaLimits {
        LuaLimits(
            maxMemory: maxMemory.flatMap(LuaLimits.parseSize), maxInstructions: maxInstructions,
            maxTime: maxTime.map { .nanoseconds(Int64(($0 * 1e9).rounded(.up))) })
    }

    /// The preference store: the file given, the user defaults of the
    /// domain given, or (by default) memory, so that running a script never
    /// writes to the user's own files unless asked to.
    var preferenceStore: any PreferenceStore {
        if let preferences {
            return PropertyListFilePreferenceStore(fileURL: URL(fileURLWithPath: preferences))
        }
        if let userDefaults {
            return UserDefaultsPreferenceStore(suiteName: userDefaults)
        }
        return InMemoryPreferenceStore()
    }

    /// A host with the chosen libraries, limits, scripts and preferences.
    /// Without --scripts, `require` looks in the script's directory (the
    /// current one for -e and standard input). Any script path works here
    /// (`.`, `/`, `dir/`, an empty one): path arithmetic is plain string
    /// work, and a path that is not a script file is reported when it is run.
    ///
    /// With `validatingLuaClasses`, a reload of the host also makes an
    /// instance of each Lua class and reads its injected properties before
    /// it commits (what `--watch` reloads with).
    func makeHost(scriptPath: String? = nil, validatingLuaClasses: Bool = false) throws -> ScriptHost {
        let registry = Registry()
        // --log-level wins over BMLUA_LOG (which main applies to every logger).
        if let logLevel { registry.logger = DiagnosticLogging.logger(program: "bmlua", level: logLevel) }
        var options = ScriptHost.Options(
            scriptsDirectory: scripts, libraries: unsafe ? .unsafe : .safe, limits: limits,
            registry: registry, preferences: preferenceStore)
        options.validatesLuaClasses = validatingLuaClasses
        let host = try ScriptHost(options: options)
        if scripts == nil && !unsafe {
            var directory = "."
            if let scriptPath, scriptPath != "-" {
                directory = ScriptPath.directory(of: scriptPath)
            }
            host.state.withStack { $0.setModuleDirectory(directory) }
        }
        return host
    }

    /// Loads the startup scripts, reporting every failing file; false if any failed.
    func loadStartupScripts(into host: ScriptHost, reporter: ErrorReporter) -> Bool {
        guard scripts != nil else { return true }
        do throws(ScriptLoadError) {
            try host.loadStartupScripts()
            return true
        } catch {
            reporter.report(error)
            return false
        }
    }
}
