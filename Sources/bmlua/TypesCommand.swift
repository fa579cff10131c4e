import ArgumentParser
import BloodMagicLua
import Foundation

/// `bmlua types [-o DIR]`: writes editor annotations for the `bm` module.
struct TypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "Write editor annotations (lua-language-server) for the bm module.",
        discussion: """
            Writes a `---@meta` file in LuaCATS syntax: every bm function, each definition \
            table as a class with typed fields (from the same schemas the runtime checks use), \
            the spell descriptors and bm.class. Point the editor's `workspace.library` at the \
            directory (see the README's .luarc.json). A Swift app adds its exposed types with \
            ScriptHost.writeAnnotations(toDirectory:).

            Examples:
              bmlua types                    print the annotations
              bmlua types -o .bmlua/types    write .bmlua/types/\(LuaAnnotations.fileName)
            """
    )

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("Write DIR/\(LuaAnnotations.fileName) instead of printing.", valueName: "DIR"))
    var output: String?

    func run() throws {
        do {
            // An inspection host: its own registry, in-memory preferences.
            let host = try ScriptChecker.inspectionHost(scriptsDirectory: nil)
            if let output {
                let path = try host.writeAnnotations(toDirectory: output)
                print(path)
            } else {
                FileHandle.standardOutput.write(Data(try host.annotations().utf8))
            }
        } catch {
            ErrorReporter().report(LuaError(.io, "bmlua types: \(error)"))
            throw ExitCode.failure
        }
    }
}
