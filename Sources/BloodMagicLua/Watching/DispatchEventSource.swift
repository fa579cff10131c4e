#if canImport(Darwin)
@_spi(BloodMagicInternals) import BloodMagic
import Darwin
import Dispatch
import Foundation
import Synchronization

/// macOS: a Dispatch file-system source (kqueue `EVFILT_VNODE`) on every
/// real directory a scan names (``WatchScan``) and on every real file it
/// stamped (kqueue hears of a write in place only on the file itself). The
/// sources only say "something changed here" (by noting their path and
/// writing to a pipe the watcher's thread waits on). For a Lua directory or
/// a file that is activity; for a directory watched only for some entries
/// (one holding a link or a directory on the way), the thread compares
/// those entries with how they were, so that other files written there
/// (a build log beside the scripts) are no activity.
///
/// A source follows its file's inode, not its path: when the path is
/// another file now, the next ``update(_:)`` watches the new one.
final class DispatchEventSource: FileEventSource {
    private let wake: (read: Int32, write: Int32)
    private let queue = DispatchQueue(label: "BloodMagic.watch")
    private let fired = FiredPaths()
    private struct Watched {
        var source: any DispatchSourceFileSystemObject
        var identity: FileIdentity
    }
    private var sources: [String: Watched] = [:]
    private var interests: [String: WatchInterest] = [:]
    private var realFiles: Set<String> = []
    /// The entries that matter of each directory watched for names only.
    private var entries: [String: [String: FileIdentity]] = [:]

    /// At most this many files get a source of their own (a descriptor
    /// each); beyond, a file's writes in place are seen by the next scan.
    static let maxFileSources = 1024

    init?() {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wake = (fds[0], fds[1])
    }

    func update(_ scan: WatchScan) -> Bool {
        interests = scan.interests
        realFiles = Set(scan.realFiles.sorted().prefix(Self.maxFileSources))
        let wanted = Set(interests.keys).union(realFiles)
        var replaced = false
        for (path, watched) in sources where !wanted.contains(path) {
            watched.source.cancel()
            sources[path] = nil
        }
        for path in wanted {
            let identity = FileIdentity(path: path)
            if let watched = sources[path] {
                if let identity, watched.identity == identity { continue }
                // Another file (or none) at this path now.
                watched.source.cancel()
                sources[path] = nil
                if interests[path] != nil { replaced = true }
            }
            guard let identity else { continue }
            let fd = open(path, O_EVTONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            let source = DispatchSource.makeFileSystemObjectSource(
                fileDescriptor: fd, eventMask: [.write, .delete, .rename, .extend, .attrib, .link, .revoke], queue: queue)
            let wakeDescriptor = wake.write
            let fired = self.fired
            source.setEventHandler {
                fired.insert(path)
                var byte: UInt8 = 1
                _ = Darwin.write(wakeDescriptor, &byte, 1)
            }
            source.setCancelHandler { Darwin.close(fd) }
            source.resume()
            sources[path] = Watched(source: source, identity: identity)
        }
        entries = [:]
        for (directory, interest) in interests where interest.isNamesOnly {
            entries[directory] = interest.entryIdentities(in: directory)
        }
        return replaced
    }

    func wait(timeout: Duration, stopDescriptor: Int32) -> FileEventWake {
        let ready = pollReadable([stopDescriptor, wake.read], timeout: timeout)
        if ready.contains(stopDescriptor) { return .stopRequested }
        guard ready.contains(wake.read) else { return .quiet }
        var drain = [UInt8](repeating: 0, count: 256)
        while drain.withUnsafeMutableBytes({ read(wake.read, $0.baseAddress, $0.count) }) > 0 {}
        var activity = false
        for path in fired.take() {
            if realFiles.contains(path) {
                activity = true
                continue
            }
            guard let interest = interests[path] else { continue }
            guard interest.isNamesOnly else {
                // kqueue does not say which entry: the scan will.
                activity = true
                continue
            }
            let now = interest.entryIdentities(in: path)
            if now != entries[path] {
                entries[path] = now
                activity = true
            }
        }
        return activity ? .activity : .quiet
    }

    func close() {
        for watched in sources.values { watched.source.cancel() }
        sources.removeAll()
        // The sources' handlers may still run on the queue: wait for them
        // before closing the pipe they write to.
        queue.sync {}
        Darwin.close(wake.read)
        Darwin.close(wake.write)
    }
}

/// The paths whose sources fired since the thread last looked.
private final class FiredPaths: Sendable {
    private let paths = Lock<Set<String>>([])

    func insert(_ path: String) {
        paths.withLock { _ = $0.insert(path) }
    }

    /// The paths noted so far; none afterwards.
    func take() -> Set<String> {
        paths.withLock { paths in
            defer { paths = [] }
            return paths
        }
    }
}
#endif
