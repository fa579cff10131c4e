import BloodMagicLua
import Dispatch
import Foundation
import Synchronization

/// `feedreader --watch`: the reader keeps running. The host watches its
/// scripts and reloads them when one changes; every few seconds the digest
/// refreshes, and after a reload it is re-injected first, so that an edit
/// of `30-controllers.lua` switches its loader on the next refresh — with a
/// line saying so. Ctrl-C stops it (exit code 0).
final class LiveWiring {
    let host: ScriptHost
    let options: CommandLineOptions
    /// The digest controller (only the main thread uses it).
    private let digest: DigestController
    /// What reloads (on the watcher's thread) tell the refreshes.
    private let notices = ReloadNotices()
    /// Signalled by Ctrl-C.
    private let stop = DispatchSemaphore(value: 0)

    init(host: ScriptHost, app: FeedReaderApp, options: CommandLineOptions) throws {
        self.host = host
        self.options = options
        self.digest = try app.$digest.value()
    }

    func run() throws {
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { [stop] in stop.signal() }
        interrupt.resume()
        defer { interrupt.cancel() }

        host.onReload { [notices] outcome in notices.reloaded(outcome) }
        try host.watch()
        defer { host.stopWatching() }
        print()
        print("Watching \(options.scriptsDirectory) (edit a script to rewire; the digest refreshes every \(Self.seconds(options.refreshInterval)); Ctrl-C stops)")
        fflush(nil)
        var refresh = 0
        while stop.wait(timeout: .now() + options.refreshInterval) == .timedOut {
            refresh += 1
            do {
                try self.refresh(refresh)
            } catch {
                // A wiring the scripts broke (a loader nothing serves): say
                // so, and try again on the next refresh, after the next edit.
                FileHandle.standardError.write(Data("feedreader: refresh \(refresh): \(error)\n".utf8))
            }
            fflush(nil)
        }
        print("Stopped watching.")
    }

    /// One refresh of the digest, re-injected first after a reload.
    private func refresh(_ number: Int) throws {
        print()
        print("Refresh \(number) at \(Self.clock())")
        if let changed = notices.takeChangedFiles() {
            let before = try digest.$loader.value().kind
            // Values already injected stay until the app asks again.
            Registry.shared.reset(digest)
            let after = try digest.$loader.value().kind
            let files = changed.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
            print(before == after
                ? "Digest loader: still \(after) after the reload (\(files))"
                : "Digest loader: \(before) -> \(after) (\(files) changed)")
        }
        try digest.run(details: false)
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    private static func clock() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return String(format: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}

/// What reloads, on the watcher's thread, leave for the next refresh.
final class ReloadNotices: Sendable {
    /// The files changed by the reloads since the last refresh; nil: none.
    private let changed = Mutex<[String]?>(nil)

    /// The changed files, if a reload happened since the last call.
    func takeChangedFiles() -> [String]? {
        changed.withLock { pending in
            defer { pending = nil }
            return pending
        }
    }

    /// What a reload did, in a line (on the watcher's thread).
    func reloaded(_ outcome: Result<ScriptReloadReport, ScriptLoadError>) {
        switch outcome {
        case .success(let report):
            let files = report.changedFiles.map { ($0 as NSString).lastPathComponent }
            // The initializers that changed, the ones a refresh can pick up.
            let initializers = report.replaced.filter { $0.kind == .initializer || $0.kind == .singleton }
            let listed = initializers.isEmpty ? "" : " (initializers: " + initializers.map(Self.describe).joined(separator: "; ") + ")"
            print("Scripts reloaded (\(files.isEmpty ? "no change" : files.joined(separator: ", "))): "
                + "\(report.replaced.count) replaced\(listed), \(report.added.count) added, \(report.removed.count) removed; "
                + "the digest re-wires on its next refresh")
            changed.withLock { $0 = ($0 ?? []) + report.changedFiles }
        case .failure(let error):
            let lines = error.failures.map { "  \($0.message)" }.joined(separator: "\n")
            FileHandle.standardError.write(Data("feedreader: the scripts did not reload; the previous wiring stays in force:\n\(lines)\n".utf8))
        }
        fflush(nil)
    }

    /// `any FeedLoader in DigestController (30-controllers.lua:12)`.
    private static func describe(_ entry: SpellEntry) -> String {
        var text = entry.type?.name ?? entry.kind.rawValue
        if let container = entry.container.key?.name { text += " in \(container)" }
        if let property = entry.property { text += ".\(property)" }
        return text + " (\((entry.source as NSString).lastPathComponent))"
    }
}
