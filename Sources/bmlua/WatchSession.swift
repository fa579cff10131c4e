@_spi(BloodMagicInternals) import BloodMagic
import BloodMagicLua
import Dispatch
import Foundation
import Synchronization

/// `--watch`: does the work once, then again after each change of the files
/// it names, and on SIGHUP, until Ctrl-C.
///
/// The files are watched by a ``FileChangeWatcher`` (inotify, Dispatch
/// sources, or polling). Each round prints a one-line separator with the
/// time and the files that changed (or `SIGHUP`). SIGINT and SIGHUP are
/// handled by Dispatch signal sources (no Swift code runs in a signal
/// handler). SIGINT wakes the loop, which stops the watcher and returns, so
/// the command exits 0; when a round is still running (a script that does
/// not end), the process exits 0 a moment later without waiting for it.
/// SIGHUP runs a round again, as servers reload on it; but when it comes
/// because the terminal the command ran in went away, it ends the watch
/// as Ctrl-C does.
final class WatchSession: Sendable {
    private struct Pending {
        var changed: Set<String> = []
        var interrupted = false
        /// SIGHUP came: run a round.
        var hungUp = false
    }

    private let pending = Lock(Pending())
    private let targets = Lock(WatchTargets())
    /// Signalled for each change and for Ctrl-C.
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled when a round after a change is over: the watcher then asks
    /// for the targets of that round.
    private let roundDone = DispatchSemaphore(value: 0)
    private let inRound = Atomic<Bool>(false)

    /// Runs `round` now and after each change; `round` does the work and
    /// returns what to watch until the next change (`initialTargets` until
    /// the first round is over). Returns on Ctrl-C.
    func run(watching initialTargets: WatchTargets, _ round: () -> WatchTargets) throws {
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { [self] in self.interrupted() }
        interrupt.resume()
        defer { interrupt.cancel() }
        let terminal = ControllingTerminal()
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hangup.setEventHandler { [self] in
            if terminal.isGone {
                self.interrupted()
            } else {
                self.pending.withLock { $0.hungUp = true }
                self.wake.signal()
            }
        }
        let registered = DispatchSemaphore(value: 0)
        hangup.setRegistrationHandler { registered.signal() }
        hangup.resume()
        defer { hangup.cancel() }
        // A SIGHUP before Dispatch set the source up would be lost.
        _ = registered.wait(timeout: .now() + .seconds(2))

        // Watching starts before the first round (what it requires is
        // added after it), so that no change after its output is missed.
        targets.withLock { $0 = initialTargets }
        let watcher = try FileChangeWatcher(
            targets: { [self] in self.targets.withLock { $0 } },
            onChange: { [self] paths in
                self.pending.withLock { $0.changed.formUnion(paths) }
                self.wake.signal()
                self.roundDone.wait()
            })
        defer { watcher.stop() }
        _ = runRound(round, watcher: watcher)
        while true {
            wake.wait()
            let (changed, interrupted, hungUp) = pending.withLock { pending -> ([String], Bool, Bool) in
                defer {
                    pending.changed = []
                    pending.hungUp = false
                }
                return (pending.changed.sorted(), pending.interrupted, pending.hungUp)
            }
            if interrupted {
                roundDone.signal()  // a watcher waiting for a round goes on, and stops
                return
            }
            guard !changed.isEmpty || hungUp else { continue }
            printSeparator(changed.isEmpty ? ["SIGHUP"] : changed)
            let next = runRound(round, watcher: nil)
            targets.withLock { $0 = next }
            // Only a change has the watcher waiting for its round.
            if !changed.isEmpty { roundDone.signal() }
        }
    }

    /// Runs a round; its output is flushed once `watcher` (if given)
    /// watches what the round named. After a change, the watcher asks for
    /// the targets itself once the round is over.
    private func runRound(_ round: () -> WatchTargets, watcher: FileChangeWatcher?) -> WatchTargets {
        inRound.store(true, ordering: .releasing)
        defer { inRound.store(false, ordering: .releasing) }
        let next = round()
        if let watcher {
            targets.withLock { $0 = next }
            watcher.refreshTargets()
        }
        fflush(nil)
        return next
    }

    /// Ctrl-C: wake the loop; if a round keeps running, leave without it.
    private func interrupted() {
        pending.withLock { $0.interrupted = true }
        wake.signal()
        guard inRound.load(ordering: .acquiring) else { return }
        Thread.sleep(forTimeInterval: 0.5)
        if inRound.load(ordering: .acquiring) {
            fflush(nil)
            _exit(0)
        }
    }

    /// `── 14:03:27 · hello.lua, lib/strings.lua ──`, paths relative to the
    /// current directory when they are below it.
    private func printSeparator(_ changed: [String]) {
        let cwd = FileManager.default.currentDirectoryPath
        let prefix = cwd.hasSuffix("/") ? cwd : cwd + "/"
        let names = changed.map { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : $0 }
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        let clock = String(format: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
        let style = TerminalStyle(for: STDOUT_FILENO)
        print(style.dim("── \(clock) · \(names.joined(separator: ", ")) ──"))
        fflush(nil)
    }
}

/// Whether the command's controlling terminal went away (its window
/// closed, the SSH session ended): the SIGHUP that follows ends the watch
/// rather than running it again. A command started without a terminal (a
/// service, a test) has none to lose.
private struct ControllingTerminal: Sendable {
    /// Whether `/dev/tty` could be opened when the watch began.
    private let hadOne: Bool

    init() {
        hadOne = Self.canOpen()
    }

    /// Whether the terminal it had is gone.
    var isGone: Bool { hadOne && !Self.canOpen() }

    private static func canOpen() -> Bool {
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }
}
