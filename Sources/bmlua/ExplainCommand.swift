import ArgumentParser
import BloodMagicLua
import Foundation

/// `bmlua explain TYPE`: why the registry would serve a type the way it does.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Explain which registration would serve a type, and why.",
        discussion: """
            Lists every registration for the type with its specificity for the
            container and where it was registered, marks the one that wins (*)
            and says why, then the hooks that would run after the injection.
            Nothing is run. TYPE is a type name or a protocol set, `any P & Q`.

            With --manifest, TYPE may be a struct the app declared with \
            declare(value:): its @Resolved properties are listed, each with \
            what serves it (a script's registration, else the app's Swift one).

            Examples:
              bmlua explain Cache --scripts Scripts
              bmlua explain 'any FeedLoader' --container DigestController --scripts Scripts
              bmlua explain Database --name primary --scripts Scripts
              bmlua explain CheckoutForm --manifest app.json --scripts Scripts
            """
    )

    @Argument(help: ArgumentHelp("The type: a name, or a protocol set `any P & Q`.", valueName: "TYPE"))
    var type: String

    @Option(help: ArgumentHelp("Explain for this container type (a class name).", valueName: "C"))
    var container: String?

    @Option(help: ArgumentHelp("Only the hooks of this property.", valueName: "NAME"))
    var property: String?

    @Option(help: ArgumentHelp(
        "Explain the registrations under this registration name (bm.initializer { name = ... }); without it, the unnamed ones.",
        valueName: "N"))
    var name: String?

    @Option(help: ArgumentHelp(
        "The app's manifest (JSON), written by ScriptHost.manifest(): explains its structs' @Resolved properties.",
        valueName: "FILE"))
    var manifest: String?

    @OptionGroup var host: HostOptions

    /// "any P & Q" as a protocol set, anything else as a type name.
    var typeKey: SpellTypeKey {
        let trimmed = type.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("any ") else { return SpellTypeKey(name: trimmed) }
        let names = trimmed.dropFirst(4).split(separator: "&").map { $0.trimmingCharacters(in: .whitespaces) }
        return SpellTypeKey(protocols: names.filter { !$0.isEmpty })
    }

    func validate() throws {
        let key = typeKey
        if key.name.isEmpty || key.name == "any" || (key.protocols?.isEmpty ?? false) {
            throw ValidationError("explain: '\(type)' is not a type name (give e.g. Cache or 'any FeedLoader')")
        }
        if let manifest, !FileManager.default.fileExists(atPath: manifest) {
            throw ValidationError("--manifest: no such file: \(manifest)")
        }
    }

    func run() throws {
        let scriptHost = try host.makeHost()
        let reporter = ErrorReporter()
        guard host.loadStartupScripts(into: scriptHost, reporter: reporter) else { throw ExitCode.failure }
        let key = typeKey
        let appManifest: AppManifest?
        do {
            appManifest = try manifest.map(AppManifest.read(from:))
        } catch {
            report("explain: --manifest: \(error)")
            throw ExitCode.failure
        }
        if container == nil, key.protocols == nil, let value = scriptHost.explain(value: key.name, manifest: appManifest) {
            print(value.description)
            return
        }
        let explanation = scriptHost.explain(key, container: container, property: property, name: name)
        let entries = scriptHost.registry.entries
        if !explanation.typeIsKnown {
            let known = entries.compactMap { $0.type?.name }
            let hint = ClosestName.among(known, to: key.name).map { " (closest: \($0))" }
                ?? (host.scripts == nil ? " (no --scripts given)" : "")
            report("explain: unknown type '\(key.name)': no registration names it\(hint)")
            throw ExitCode.failure
        }
        if let container, !explanation.containerIsKnown && !scriptHost.definesClass(named: container) {
            let known = entries.compactMap { $0.container.key?.name } + scriptHost.luaClasses.keys
            let hint = ClosestName.among(known, to: container).map { " (closest: \($0))" } ?? ""
            report("explain: unknown container '\(container)': no registration, hook or class names it\(hint)")
            throw ExitCode.failure
        }
        print(explanation.description)
    }

    /// Writes `bmlua: message` on standard error.
    private func report(_ message: String) {
        let style = TerminalStyle(for: STDERR_FILENO)
        FileHandle.standardError.write(Data((style.bold("bmlua:") + " " + style.red(message) + "\n").utf8))
    }
}

/// The known name closest to a mistyped one, by edit distance (ignoring case).
enum ClosestName {
    /// The name of `candidates` within a few edits of `name`, nearest first
    /// (ties by name); nil when none is close.
    ///
    /// O(total bytes of the candidates): the distance is bounded
    /// (``NameSimilarity/editDistance(_:_:atMost:)``), where the full table
    /// of each candidate against the name took minutes for 10,000 long
    /// registered names.
    static func among(_ candidates: some Sequence<String>, to name: String) -> String? {
        let limit = name.count <= 4 ? 1 : (name.count <= 8 ? 2 : 3)
        let target = Array(name.lowercased().utf8)
        return Set(candidates)
            .compactMap { candidate -> (String, Int)? in
                // Lowercasing keeps an ASCII name's length: most are skipped here.
                guard candidate.utf8.count <= 4 * (target.count + limit) else { return nil }
                return distance(candidate, target, atMost: limit).map { (candidate, $0) }
            }
            .min { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }?.0
    }

    /// The edit distance between `candidate` and `target` (lowercased
    /// bytes), when it is at most `limit`.
    static func distance(_ candidate: String, _ target: [UInt8], atMost limit: Int) -> Int? {
        NameSimilarity.editDistance(Array(candidate.lowercased().utf8), target, atMost: limit)
    }
}
