import ArgumentParser
import BloodMagicLua
import Foundation

/// `bmlua types [--manifest app.json] [-o DIR]`: writes editor annotations
/// for the `bm` module and, given a manifest, for what the app gives its scripts.
struct TypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "Write editor annotations (lua-language-server) for the bm module.",
        discussion: """
            Writes a `---@meta` file in LuaCATS syntax: every bm function, each definition \
            table as a class with typed fields (from the same schemas the runtime checks use), \
            the spell descriptors and bm.class. Point the editor's `workspace.library` at the \
            directory (see the README's .luarc.json).

            With --manifest (written by the app: ScriptHost.manifest(), e.g. \
            `feedreader --write-manifest app.json`), the file also has one class per Swift \
            type the app exposes (constructor, properties, methods) and the globals it sets. \
            A Swift app can write the same file itself with ScriptHost.writeAnnotations(toDirectory:).

            Given scripts (a directory of startup scripts, or files), types loads them first, \
            as check does (their print goes to standard error), so the spells they define \
            with bm.define_spell are annotated as bm.spell.<name> beside the app's. A script \
            that fails is reported as file:line and the exit status is 1, but the \
            annotations are still written.

            Examples:
              bmlua types                                    print the annotations
              bmlua types -o .bmlua/types                    write .bmlua/types/\(LuaAnnotations.fileName)
              bmlua types --manifest app.json -o .bmlua/types
              bmlua types --manifest app.json -o .bmlua/types Scripts
            """
    )

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("Write DIR/\(LuaAnnotations.fileName) instead of printing.", valueName: "DIR"))
    var output: String?

    @Option(help: ArgumentHelp("The app's manifest (JSON), written by ScriptHost.manifest().", valueName: "FILE"))
    var manifest: String?

    @Argument(help: ArgumentHelp(
        "Scripts whose bm.define_spell spells to annotate: a directory of startup scripts, or files.",
        valueName: "scripts"))
    var scripts: [String] = []

    func validate() throws {
        if let manifest, !FileManager.default.fileExists(atPath: manifest) {
            throw ValidationError("--manifest: no such file: \(manifest)")
        }
        try ScriptPathArguments.validate(scripts)
    }

    func run() throws {
        do {
            // An inspection host: its own registry, in-memory preferences.
            let host = try ScriptChecker.inspectionHost(scriptsDirectory: scriptsDirectory)
            defer { host.unload() }
            let appManifest = try manifest.map(AppManifest.read(from:))
            let loaded = loadScripts(into: host)
            if let output {
                let path = try host.writeAnnotations(toDirectory: output, manifest: appManifest)
                print(path)
            } else {
                FileHandle.standardOutput.write(Data(try host.annotations(manifest: appManifest).utf8))
            }
            if !loaded { throw ExitCode.failure }
        } catch let error as ExitCode {
            throw error
        } catch let error as AppManifestError {
            ErrorReporter().report(LuaError(.io, "\(error)"))
            throw ExitCode.failure
        } catch {
            ErrorReporter().report(LuaError(.io, "bmlua types: \(error)"))
            throw ExitCode.failure
        }
    }

    /// The directory `scripts` names (nil without scripts; a file's own directory).
    private var scriptsDirectory: String? {
        guard let first = scripts.first else { return nil }
        return ScriptPathArguments.directory(in: scripts) ?? ScriptPath.directory(of: first)
    }

    /// Loads `scripts` into `host`, reporting each failure as `file:line`;
    /// false when one failed.
    private func loadScripts(into host: ScriptHost) -> Bool {
        guard !scripts.isEmpty else { return true }
        do {
            if ScriptPathArguments.directory(in: scripts) != nil {
                try host.loadStartupScripts()
            } else {
                try host.load(files: scripts)
            }
            return true
        } catch {
            for failure in error.failures { ErrorReporter().report(failure) }
            return false
        }
    }
}
