import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Watches files on a thread of its own and calls `onChange` with the paths
/// that changed, a burst of writes (an editor's save is several events, a
/// checkout many files) coalesced into one call.
///
/// The system's events (or a poll) only say when to look: once a burst
/// ends (`quiet` without an event that matters, or `maxDelay` after it
/// began), the watcher scans the targets (``WatchScan``: every link
/// resolved again) and compares the files' stamps with those of the last
/// scan it reported from; the paths that differ are the change. So a link
/// re-pointed, a directory replaced, a module that appeared in a new
/// subdirectory are changes like an edit, with every event source, and the
/// scan says where to watch from then on. After each call, and every
/// `refreshInterval` while nothing happens, the watcher asks `targets`
/// again what to watch (a reload may have required new modules) and scans
/// again. `stop()` (or the watcher going away) ends the thread; a call in
/// progress finishes first.
package final class FileChangeWatcher: Sendable {
    /// The paths that changed (absolute, standardized), sorted.
    package typealias Handler = @Sendable (_ changed: [String]) -> Void

    /// What the watcher uses: the mode asked for, or polling when the
    /// system's events could not be set up.
    package let mode: ScriptWatchMode
    private let stopPipe: (read: Int32, write: Int32)
    private let stopped = Atomic<Bool>(false)
    /// The watcher thread's id (0 until it runs), to recognise a `stop()`
    /// from inside `onChange`.
    private let thread = Atomic<UInt>(0)
    private let finished = DispatchSemaphore(value: 0)
    /// Set by `refreshTargets()`, taken by the thread.
    private let refreshRequested = Atomic<Bool>(false)
    private let refreshed = DispatchSemaphore(value: 0)

    /// Watcher threads running in this process (for tests and tools).
    package static var runningCount: Int { running.load(ordering: .acquiring) }
    private static let running = Atomic<Int>(0)

    /// Starts watching.
    ///
    /// - Parameters:
    ///   - quiet: how long without events ends a burst.
    ///   - maxDelay: the longest a burst is held back.
    ///   - refreshInterval: how often `targets` is asked again while idle.
    package init(
        mode: ScriptWatchMode = .native,
        quiet: Duration = .milliseconds(50),
        maxDelay: Duration = .milliseconds(250),
        refreshInterval: Duration = .seconds(1),
        targets: @escaping @Sendable () -> WatchTargets,
        onChange: @escaping Handler
    ) throws(LuaError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw LuaError(.io, "cannot watch the scripts: no pipe (\(String(cString: strerror(errno))))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        stopPipe = (fds[0], fds[1])
        let plan = Self.plan(for: mode)
        self.mode = plan.mode
        let armed = DispatchSemaphore(value: 0)
        Self.running.add(1, ordering: .releasing)
        let thread = Thread { [self] in
            self.thread.store(currentThreadID(), ordering: .releasing)
            self.run(plan.plan.makeSource(), armed: armed, quiet: quiet, maxDelay: maxDelay,
                     refreshInterval: refreshInterval, targets: targets, onChange: onChange)
            Self.running.subtract(1, ordering: .releasing)
            finished.signal()
        }
        thread.name = "BloodMagic file watcher"
        thread.start()
        // A change made after this returns is seen: the watches are set.
        // (Bounded, should `targets` wait for something the caller holds.)
        _ = armed.wait(timeout: .now() + .seconds(2))
    }

    deinit {
        Foundation.close(stopPipe.read)
        Foundation.close(stopPipe.write)
    }

    /// Whether the watcher still runs.
    package var isRunning: Bool { !stopped.load(ordering: .acquiring) }

    /// Makes the watcher ask `targets` again now (what to watch changed:
    /// a reload required other modules), and waits until it watches them —
    /// unless called from `onChange`, after which it asks anyway.
    package func refreshTargets() {
        guard isRunning, thread.load(ordering: .acquiring) != currentThreadID() else { return }
        refreshRequested.store(true, ordering: .releasing)
        var byte: UInt8 = 2
        _ = write(stopPipe.write, &byte, 1)
        _ = refreshed.wait(timeout: .now() + .seconds(2))
    }

    /// Stops the thread and waits for it to end (unless called from
    /// `onChange`, on the thread itself). Later calls do nothing.
    package func stop() {
        if !stopped.exchange(true, ordering: .acquiringAndReleasing) {
            var byte: UInt8 = 1
            _ = write(stopPipe.write, &byte, 1)
        }
        guard thread.load(ordering: .acquiring) != currentThreadID() else { return }
        finished.wait()
        finished.signal()  // for the next caller
    }

    /// What the thread will watch with, and the mode that is.
    private static func plan(for mode: ScriptWatchMode) -> (plan: SourcePlan, mode: ScriptWatchMode) {
        let fallback = ScriptWatchMode.fallbackInterval
        switch mode {
        case .polling(let interval):
            return (.polling(interval), mode)
        case .native:
            #if os(Linux)
            let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            if descriptor >= 0 { return (.inotify(descriptor), .native) }
            return (.polling(fallback), .polling(interval: fallback))
            #elseif canImport(Darwin)
            return (.dispatch, .native)
            #else
            return (.polling(fallback), .polling(interval: fallback))
            #endif
        }
    }

    private func run(
        _ source: any FileEventSource, armed: DispatchSemaphore, quiet: Duration, maxDelay: Duration,
        refreshInterval: Duration, targets: @Sendable () -> WatchTargets, onChange: Handler
    ) {
        defer { source.close() }
        let clock = ContinuousClock()
        var watched = targets()
        var scan = WatchScan(watched)
        _ = source.update(scan)
        // What was last reported (or first seen): a change is a difference
        // from it.
        var baseline = scan
        armed.signal()
        var lastRefresh = clock.now
        var burstStart: ContinuousClock.Instant?
        var lastEvent = clock.now
        // Something may have changed: look (scan and compare) once a burst
        // of such moments is over.
        func noteActivity() {
            let now = clock.now
            if burstStart == nil { burstStart = now }
            lastEvent = now
        }
        // Scans what is watched now, and watches where the scan says.
        func rescan() {
            scan = WatchScan(watched)
            // A directory replaced under a watch: a change in between may
            // have been missed; look again after this one.
            if source.update(scan) { noteActivity() }
        }
        while !stopped.load(ordering: .acquiring) {
            var timeout = refreshInterval
            if let burstStart {
                let now = clock.now
                timeout = max(.zero, min(quiet - (now - lastEvent), maxDelay - (now - burstStart)))
            }
            switch source.wait(timeout: timeout, stopDescriptor: stopPipe.read) {
            case .stopRequested:
                // The pipe: stop, or ask the targets again.
                if stopped.load(ordering: .acquiring) { return }
                var drain = [UInt8](repeating: 0, count: 64)
                while drain.withUnsafeMutableBytes({ read(stopPipe.read, $0.baseAddress, $0.count) }) > 0 {}
                if refreshRequested.exchange(false, ordering: .acquiringAndReleasing) {
                    watched = targets()
                    rescan()
                    lastRefresh = clock.now
                    refreshed.signal()
                    // Compare what changed while the targets were asked for.
                    noteActivity()
                }
                continue
            case .activity:
                noteActivity()
            case .quiet:
                break
            }
            let now = clock.now
            if let start = burstStart, now - lastEvent >= quiet || now - start >= maxDelay {
                burstStart = nil
                rescan()
                let changed = baseline.snapshot.changes(to: scan.snapshot, from: baseline.targets, to: scan.targets)
                baseline = scan
                lastRefresh = clock.now
                guard !changed.isEmpty else { continue }
                if stopped.load(ordering: .acquiring) { return }
                onChange(changed)
                let next = targets()
                if next != watched {
                    watched = next
                    rescan()
                }
                // A change made while `onChange` ran is compared with the
                // scan from before it, at the next quiet moment.
                noteActivity()
                lastRefresh = clock.now
            } else if burstStart == nil, now - lastRefresh >= refreshInterval {
                // Idle: ask the targets again, and look again. Events cover
                // what is watched; this covers what could not be (a watch
                // the system refused) within a refresh interval.
                watched = targets()
                let previous = scan
                rescan()
                if scan != previous || scan.snapshot != baseline.snapshot { noteActivity() }
                lastRefresh = now
            }
        }
    }
}

/// Which event source the watcher thread makes (decided before it starts,
/// so that `mode` is known; the source itself lives on the thread).
private enum SourcePlan: Sendable {
    case polling(Duration)
    /// An inotify instance already opened.
    case inotify(Int32)
    case dispatch

    func makeSource() -> any FileEventSource {
        switch self {
        case .polling(let interval):
            return PollingEventSource(interval: interval)
        case .inotify(let descriptor):
            #if os(Linux)
            return InotifyEventSource(descriptor: descriptor)
            #else
            _ = descriptor
            return PollingEventSource(interval: ScriptWatchMode.fallbackInterval)
            #endif
        case .dispatch:
            #if canImport(Darwin)
            if let source = DispatchEventSource() { return source }
            #endif
            return PollingEventSource(interval: ScriptWatchMode.fallbackInterval)
        }
    }
}
