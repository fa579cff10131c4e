import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a ``FileChangeWatcher`` hears that something may have changed.
/// A source only says "look again": the watcher then scans
/// (``WatchScan``) and compares stamps to know what changed, so that every
/// source reports the same changes. Each source lives on its watcher's
/// thread only: it is made, used and closed there.
protocol FileEventSource: AnyObject {
    /// Watches what `scan` found from now on. Returns whether a directory
    /// already watched had been replaced by another (its watch made again):
    /// a change in between may have been missed, so the watcher looks again.
    func update(_ scan: WatchScan) -> Bool
    /// Waits at most `timeout` for something that may be a change, or
    /// until `stopDescriptor` becomes readable.
    func wait(timeout: Duration, stopDescriptor: Int32) -> FileEventWake
    /// Releases what the source holds.
    func close()
}

/// Why a ``FileEventSource``'s wait ended.
enum FileEventWake: Equatable {
    /// The stop descriptor is readable (stop, or a request to ask the
    /// targets again).
    case stopRequested
    /// The time ran out, or only things that do not matter happened.
    case quiet
    /// Something that matters may have changed.
    case activity
}

/// `poll(2)` on `descriptors` for input, for at most `timeout`; the
/// descriptors that are readable (an interrupted wait is an empty answer).
func pollReadable(_ descriptors: [Int32], timeout: Duration) -> Set<Int32> {
    var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    let milliseconds = max(0, Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
    let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), milliseconds) }
    guard ready > 0 else { return [] }
    return Set(fds.filter { $0.revents != 0 }.map(\.fd))
}

/// Polling: scans the targets every `interval` and reports activity when
/// the stamps differ from the last ones. The fallback where the system has
/// no file events (or they could not be set up).
final class PollingEventSource: FileEventSource {
    let interval: Duration
    private var targets = WatchTargets()
    private var snapshot = FileStampSnapshot()
    private let clock = ContinuousClock()
    private var nextScan: ContinuousClock.Instant

    init(interval: Duration) {
        self.interval = max(interval, .milliseconds(5))
        nextScan = clock.now
    }

    func update(_ scan: WatchScan) -> Bool {
        targets = scan.targets
        snapshot = scan.snapshot
        nextScan = clock.now + interval
        return false
    }

    func wait(timeout: Duration, stopDescriptor: Int32) -> FileEventWake {
        let untilScan = max(.zero, nextScan - clock.now)
        if !pollReadable([stopDescriptor], timeout: min(timeout, untilScan)).isEmpty { return .stopRequested }
        guard clock.now >= nextScan else { return .quiet }
        nextScan = clock.now + interval
        let fresh = WatchScan(targets).snapshot
        guard fresh != snapshot else { return .quiet }
        snapshot = fresh
        return .activity
    }

    func close() {}
}
