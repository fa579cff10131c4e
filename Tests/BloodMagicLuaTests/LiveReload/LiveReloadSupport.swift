@_spi(BloodMagicInternals) import BloodMagic
import TestSupport
import Foundation
import Logging
import Synchronization
import Testing
@testable import BloodMagicLua

/// A scratch scripts directory a test edits as an editor would.
final class ScriptFolder: Sendable {
    let url: URL
    var path: String { url.path }

    init(_ files: [String: String]) throws {
        url = try scratchDirectory(files)
    }

    func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Rewrites `name` in place (truncate and write, keeping the inode).
    func write(_ name: String, _ text: String) throws {
        let target = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: target, options: [])
    }

    /// Writes a temporary file beside `name`, then renames it over `name`
    /// (an editor's atomic save: another inode).
    func saveAtomically(_ name: String, _ text: String) throws {
        let target = url.appendingPathComponent(name)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).swp")
        try Data(text.utf8).write(to: temporary, options: [])
        guard rename(temporary.path, target.path) == 0 else { throw CLITestError("rename failed: errno \(errno)") }
    }
}

/// Polls `condition` every few milliseconds until it holds or `limit`
/// passes; returns whether it held.
func eventually(within limit: Duration = .seconds(5), _ condition: () throws -> Bool) rethrows -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + limit
    while true {
        if try condition() { return true }
        if clock.now >= end { return false }
        Thread.sleep(forTimeInterval: 0.002)
    }
}

/// A startup script serving `value` as the `String` every container gets
/// (with `extra` on the lines after it).
func labelScript(_ value: String, extra: String? = nil) -> String {
    let script = #"bm.initializer { type = "String", init = function() return "\#(value)" end }"#
    return extra.map { script + "\n" + $0 } ?? script
}

/// The label `host`'s wiring serves a `WatchedHolder`, if any.
func label(_ host: ScriptHost) -> String? {
    try? Registry.withCurrent(host.registry) { WatchedHolder() }.$label.value()
}

/// A host on `directory`, its scripts loaded, watching with `mode`.
func watchingHost(_ directory: String, _ mode: ScriptWatchMode) throws -> ScriptHost {
    let host = try ScriptHost(options: .init(
        scriptsDirectory: directory, registry: Registry(), preferences: InMemoryPreferenceStore(), watch: mode))
    try host.loadStartupScripts()
    return host
}

/// A host on `folder`, its scripts loaded, watching with `mode`.
func watchingHost(_ folder: ScriptFolder, _ mode: ScriptWatchMode) throws -> ScriptHost {
    try watchingHost(folder.path, mode)
}

/// A host on `folder` with no limits and a registry and preferences of its
/// own, its scripts loaded after `prepare` (unloaded again if they fail).
func loadedHost(_ folder: ScriptFolder, prepare: (ScriptHost) -> Void = { _ in }) throws -> ScriptHost {
    let host = try ScriptHost(options: .init(
        scriptsDirectory: folder.path, limits: .none, registry: Registry(), preferences: InMemoryPreferenceStore()))
    prepare(host)
    do {
        try host.loadStartupScripts()
    } catch {
        host.unload()
        throw error
    }
    return host
}

/// The outcomes a host's `onReload` callbacks saw, in order.
final class ReloadLog: Sendable {
    private let outcomes = Lock<[Result<ScriptReloadReport, ScriptLoadError>]>([])

    init(_ host: ScriptHost) {
        host.onReload { [weak self] outcome in self?.record(outcome) }
    }

    private func record(_ outcome: Result<ScriptReloadReport, ScriptLoadError>) {
        outcomes.withLock { $0.append(outcome) }
    }

    var all: [Result<ScriptReloadReport, ScriptLoadError>] { outcomes.withLock { $0 } }
    var count: Int { all.count }
    var failures: [ScriptLoadError] {
        all.compactMap { if case .failure(let error) = $0 { error } else { nil } }
    }
    var successes: [ScriptReloadReport] {
        all.compactMap { if case .success(let report) = $0 { report } else { nil } }
    }
}

/// Holds a state weakly, to see whether it was freed.
struct WeakLuaState {
    weak var state: LuaState?
    init(_ state: LuaState) { self.state = state }
    var isAlive: Bool { state != nil }
}
