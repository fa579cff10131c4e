import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The file moves deployments make, done the way the tools that make them
// do (system calls in the same order), for the live-reload tests.

/// Fails with errno's message when a system call did not return 0.
func check(_ status: Int32, _ what: @autoclosure () -> String) throws {
    guard status == 0 else { throw CLITestError("\(what()): \(String(cString: strerror(errno)))") }
}

/// Writes `text` to `path`, creating the directories on the way (in
/// place: truncate and write).
func writeFile(_ path: String, _ text: String) throws {
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url, options: [])
}

/// A symbolic link at `path` to `destination` (relative or absolute, as given).
func makeLink(_ path: String, to destination: String) throws {
    try check(symlink(destination, path), "symlink \(path) -> \(destination)")
}

/// Points the symbolic link `path` at `destination` atomically, as
/// `ln -sfn destination path.tmp && mv -T path.tmp path` does: a new link
/// renamed over the old one (readers never see it missing).
func repointLink(_ path: String, to destination: String) throws {
    let temporary = path + ".tmp-\(UInt32.random(in: 0...UInt32.max))"
    try makeLink(temporary, to: destination)
    try check(rename(temporary, path), "rename \(temporary) -> \(path)")
}

/// A Kubernetes ConfigMap or Secret volume, written as the kubelet's atomic
/// writer does (`pkg/volume/util/atomic_writer.go`): the files live in a
/// timestamped hidden directory, `..data` links to it, and each top-level
/// name is a link through `..data` (`x.lua -> ..data/x.lua`,
/// `lib -> ..data/lib`). An update writes a new timestamped directory,
/// makes `..data_tmp` link to it, renames that over `..data`, adds links
/// for new top-level names, removes the old directory, then the links of
/// names gone.
struct KubernetesVolume {
    let path: String
    private var generation = 0

    /// A volume at `path` (created) holding `files` (relative paths).
    init(at path: String, files: [String: String]) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try update(files)
    }

    /// The names of the top-level links for `files`.
    private static func topLevel(_ files: [String: String]) -> Set<String> {
        Set(files.keys.map { String($0.split(separator: "/").first ?? "") })
    }

    /// Replaces the volume's contents with `files`, as one atomic swap.
    mutating func update(_ files: [String: String]) throws {
        generation += 1
        let old = (try? FileManager.default.destinationOfSymbolicLink(atPath: path + "/..data")) ?? nil
        let oldNames = Set(((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { !$0.hasPrefix("..") })
        // `..2026_11_27_01_00_00.123456789`: time-stamped, unique.
        let stamp = String(format: "..2026_11_27_01_00_%02d.%09d", generation % 60, Int.random(in: 0..<1_000_000_000))
        for (name, text) in files { try writeFile(path + "/" + stamp + "/" + name, text) }
        try makeLink(path + "/..data_tmp", to: stamp)
        try check(rename(path + "/..data_tmp", path + "/..data"), "rename ..data_tmp -> ..data")
        let names = Self.topLevel(files)
        for name in names.subtracting(oldNames) { try makeLink(path + "/" + name, to: "..data/" + name) }
        if let old { try FileManager.default.removeItem(atPath: path + "/" + old) }
        for name in oldNames.subtracting(names) { try FileManager.default.removeItem(atPath: path + "/" + name) }
    }
}
