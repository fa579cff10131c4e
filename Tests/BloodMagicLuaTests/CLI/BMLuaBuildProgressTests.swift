import Foundation
import TestSupport
import Testing

// Issue 27: `./scripts/bmlua` builds bmlua first; that first build takes
// minutes, so on a terminal it says so and shows SwiftPM's progress, where
// it was silent. Off a terminal it stays quiet. The build is SwiftPM's: a
// stand-in `swift` on PATH plays it here, printing progress lines.

/// A scratch package root whose bmlua is stale, and a stand-in `swift`.
private func staleRoot() throws -> (root: URL, bin: URL) {
    let root = try scratchDirectory([
        "Package.swift": "// stand-in",
        "Sources/bmlua/main.swift": "// stand-in",
        "bin/swift": """
            #!/bin/sh
            echo "[1/3] Compiling BloodMagic Registry.swift"
            echo "[3/3] Linking bmlua"
            mkdir -p "$3/.build/release" && printf '#!/bin/sh\\n' > "$3/.build/release/bmlua" && chmod +x "$3/.build/release/bmlua"
            """,
    ])
    let swift = root.appendingPathComponent("bin/swift")
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
    return (root, root.appendingPathComponent("bin"))
}

/// `bm_build_bmlua release ROOT`, with the stand-in first on PATH; on a
/// pseudo-terminal (through `script`) or not.
private func build(onTerminal: Bool) throws -> String {
    let (root, bin) = try staleRoot()
    let library = packageRoot.appendingPathComponent("scripts/lib/build-bmlua.sh").path
    let command = "PATH='\(bin.path)':\"$PATH\"; . '\(library)'; bm_build_bmlua release '\(root.path)'"
    let shell = onTerminal
        ? "timeout 20 script -qfec \"bash -c '\(command.replacingOccurrences(of: "'", with: "'\\''"))'\" /dev/null"
        : "bash -c '\(command.replacingOccurrences(of: "'", with: "'\\''"))' 2>&1 | cat"
    let result = try Subprocess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", shell])
    return result.stdout + result.stderr
}

@Suite("scripts/bmlua: the build shows its progress on a terminal", .enabled(if: hasScriptCommand))
struct BMLuaBuildProgressTests {
    @Test func onATerminalTheBuildSaysSoAndShowsProgress() throws {
        let screen = try build(onTerminal: true)
        #expect(screen.contains("Building bmlua (release): the first build takes a few minutes"), "\(screen.debugDescription)")
        #expect(screen.contains("[1/3] Compiling BloodMagic Registry.swift"), "\(screen.debugDescription)")
        #expect(screen.contains("[3/3] Linking bmlua"))
    }

    @Test func offATerminalItStaysQuietUntilItHasSomethingToShow() throws {
        let output = try build(onTerminal: false)
        #expect(!output.contains("Building bmlua"), "\(output)")
        // Something compiled: shown once the build is over, as before.
        #expect(output.contains("[3/3] Linking bmlua"))
    }
}
