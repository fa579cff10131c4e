#if canImport(Darwin)
import Darwin
import Dispatch
import Foundation

/// macOS: a Dispatch file-system source (kqueue `EVFILT_VNODE`) on every
/// directory the targets live in and on every target file. The sources only
/// say "something changed here" (by writing to a pipe the watcher's thread
/// waits on); the thread then compares the targets' stamps with the last
/// ones to know what. A directory source sees files created, removed and
/// renamed over (atomic saves); a file source sees writes in place.
final class DispatchEventSource: FileEventSource {
    private let wake: (read: Int32, write: Int32)
    private let queue = DispatchQueue(label: "BloodMagic.watch")
    private var sources: [String: any DispatchSourceFileSystemObject] = [:]
    private var targets = WatchTargets()
    private var snapshot: FileStampSnapshot?

    init?() {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        wake = (fds[0], fds[1])
    }

    func update(_ targets: WatchTargets) {
        self.targets = targets
        snapshot = FileStampSnapshot(targets)
        // Rebuilt each time: a file renamed over is another inode.
        for source in sources.values { source.cancel() }
        sources.removeAll()
        for path in targets.directories.union(targets.files) {
            let fd = open(path, O_EVTONLY)
            guard fd >= 0 else { continue }
            let source = DispatchSource.makeFileSystemObjectSource(
                fileDescriptor: fd, eventMask: [.write, .delete, .rename, .extend, .attrib, .link, .revoke], queue: queue)
            let wakeDescriptor = wake.write
            source.setEventHandler {
                var byte: UInt8 = 1
                _ = Darwin.write(wakeDescriptor, &byte, 1)
            }
            source.setCancelHandler { Darwin.close(fd) }
            source.resume()
            sources[path] = source
        }
    }

    func wait(timeout: Duration, stopDescriptor: Int32) -> [String]? {
        let ready = pollReadable([stopDescriptor, wake.read], timeout: timeout)
        if ready.contains(stopDescriptor) { return nil }
        guard ready.contains(wake.read) else { return [] }
        var drain = [UInt8](repeating: 0, count: 256)
        while drain.withUnsafeMutableBytes({ read(wake.read, $0.baseAddress, $0.count) }) > 0 {}
        let fresh = FileStampSnapshot(targets)
        defer { snapshot = fresh }
        return (snapshot?.changes(to: fresh) ?? []).filter(targets.isRelevant)
    }

    func close() {
        for source in sources.values { source.cancel() }
        sources.removeAll()
        // The sources' handlers may still run on the queue: wait for them
        // before closing the pipe they write to.
        queue.sync {}
        Darwin.close(wake.read)
        Darwin.close(wake.write)
    }
}
#endif
