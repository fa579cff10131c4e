import BloodMagicLua
import Foundation

extension FuzzTargets {
    /// The limits a fuzzed script runs under: small enough that one input
    /// takes at most a few milliseconds, large enough for real wiring.
    public static let scriptLimits = LuaLimits(maxMemory: 4 << 20, maxInstructions: 200_000)

    /// Target `script`: the bytes run as a startup script in a sandboxed,
    /// limited ``ScriptHost`` with `bm` loaded, an in-memory preference store,
    /// a registry of its own and an exposed Swift class (`Gauge`, and its
    /// object `gauge`; see ``FuzzGauge``).
    ///
    /// Invariants: the run ends (with or without an error), a failing script
    /// leaves no registration behind, the state answers a plain chunk
    /// afterwards, `unload()` leaves the registry empty, and once the host
    /// is unloaded and released its Lua state is freed (nothing the script
    /// did keeps it alive).
    @Sendable
    public static func runScript(_ bytes: UnsafeRawBufferPointer) -> FuzzResult {
        let registry = Registry()
        var result = FuzzResult(outcome: "ok")
        weak var state: LuaState?
        do {
            let host = try ScriptHost(
                options: .init(
                    libraries: .safe, limits: scriptLimits, registry: registry,
                    preferences: InMemoryPreferenceStore()))
            state = host.state
            exposeFuzzTypes(to: host)
            result = FuzzScratch.withFile(containing: bytes, suffix: ".lua") { file in
                runStartupScript(file, in: host, registry: registry)
            }
            host.unload()
            result.check(registry.entries.isEmpty, "unload() left \(registry.entries.count) registrations behind")
        } catch {
            result.outcome = "host: \(error)"
            result.violations.append("a limited ScriptHost could not be made: \(error)")
        }
        result.check(state == nil, "the Lua state outlived its unloaded and released host")
        return result
    }

    /// Loads `file` as a startup script of `host` and checks what it left.
    private static func runStartupScript(_ file: URL, in host: ScriptHost, registry: Registry) -> FuzzResult {
        var result = FuzzResult(outcome: "ok")
        do throws(ScriptLoadError) {
            try host.load(files: [file.path])
        } catch {
            result.outcome = "error: \(error.failures.map(\.message).joined(separator: "; "))"
            result.check(error.failures.count == 1, "one failing file gave \(error.failures.count) failures")
            result.check(
                registry.entries.isEmpty,
                "a failing script left \(registry.entries.count) registrations: \(registry.entries.map(\.source))")
        }
        // Whatever the script did to its globals, the state still runs a
        // chunk that uses none of them (unless what the script keeps alive
        // leaves no memory under the limit for it).
        do throws(LuaError) {
            let answer = try host.run("return 1 + 1", name: "=[fuzz check]")
            result.check(answer == [.integer(2)], "the state answered \(answer) to 1 + 1")
        } catch where error.kind == .memoryLimit {
        } catch {
            result.violations.append("the state no longer runs a plain chunk: \(error)")
        }
        return result
    }
}
