import ArgumentParser
import BloodMagic
import Foundation

/// Options that shape the Lua state: libraries and limits.
struct HostOptions: ParsableArguments {
    @Option(name: .customLong("max-instructions"), help: ArgumentHelp("Stop a run after N VM instructions.", valueName: "N"))
    var maxInstructions: Int?

    @Option(name: .customLong("max-memory"), help: ArgumentHelp("Cap the state's memory, e.g. 16M, 512K, 1G.", valueName: "SIZE"))
    var maxMemory: String?

    @Flag(help: "Open the full standard library (io, os, package, debug).")
    var unsafe = false

    func validate() throws {
        if let maxMemory, LuaLimits.parseSize(maxMemory) == nil {
            throw ValidationError("--max-memory: '\(maxMemory)' is not a size (use e.g. 16M, 512K, 1G or a byte count)")
        }
        if let maxInstructions, maxInstructions <= 0 {
            throw ValidationError("--max-instructions: must be a positive number, got \(maxInstructions)")
        }
    }

    /// The limits these options ask for.
    var limits: LuaLimits {
        LuaLimits(maxMemory: maxMemory.flatMap(LuaLimits.parseSize), maxInstructions: maxInstructions)
    }

    /// A state with the chosen libraries and limits. `require` looks in the
    /// script's directory (the current one for -e and standard input).
    func makeState(scriptPath: String? = nil) throws -> LuaState {
        let state = try LuaState(libraries: unsafe ? .unsafe : .safe, limits: limits)
        if !unsafe {
            var directory = "."
            if let scriptPath, scriptPath != "-" {
                directory = (scriptPath as NSString).deletingLastPathComponent
                if directory.isEmpty { directory = "." }
            }
            state.withStack { $0.setPackagePath("\(directory)/?.lua;\(directory)/?/init.lua") }
        }
        return state
    }
}
