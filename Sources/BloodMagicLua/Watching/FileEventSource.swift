import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a ``FileChangeWatcher`` gets its changes from. Each source lives on
/// its watcher's thread only: it is made, used and closed there.
protocol FileEventSource: AnyObject {
    /// Watches what `targets` names from now on.
    func update(_ targets: WatchTargets)
    /// Waits at most `timeout` for changes, or until `stopDescriptor`
    /// becomes readable. Returns the relevant paths that changed (empty when
    /// the time ran out or only irrelevant things happened), or nil when
    /// `stopDescriptor` is readable (stop, or a request to ask the targets again).
    func wait(timeout: Duration, stopDescriptor: Int32) -> [String]?
    /// Releases what the source holds.
    func close()
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

/// Polling: stamps the targets every `interval` and reports what differs
/// from the last stamps. The fallback where the system has no file events
/// (or they could not be set up).
final class PollingEventSource: FileEventSource {
    let interval: Duration
    private var targets = WatchTargets()
    private var snapshot: FileStampSnapshot?
    private let clock = ContinuousClock()
    private var nextScan: ContinuousClock.Instant

    init(interval: Duration) {
        self.interval = max(interval, .milliseconds(5))
        nextScan = clock.now
    }

    func update(_ targets: WatchTargets) {
        guard targets != self.targets || snapshot == nil else { return }
        self.targets = targets
        snapshot = FileStampSnapshot(targets)
        nextScan = clock.now + interval
    }

    func wait(timeout: Duration, stopDescriptor: Int32) -> [String]? {
        let untilScan = max(.zero, nextScan - clock.now)
        if !pollReadable([stopDescriptor], timeout: min(timeout, untilScan)).isEmpty { return nil }
        guard clock.now >= nextScan else { return [] }
        nextScan = clock.now + interval
        let fresh = FileStampSnapshot(targets)
        defer { snapshot = fresh }
        return (snapshot?.changes(to: fresh) ?? []).filter(targets.isRelevant)
    }

    func close() {}
}
