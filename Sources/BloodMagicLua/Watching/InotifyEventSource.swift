#if os(Linux)
import Foundation
import Glibc

/// Linux: inotify on every real directory a scan names (``WatchScan``):
/// the Lua directories, the directories holding each link and directory
/// the watched paths go through, and those holding the files links lead
/// to. Watching directories rather than files sees a file renamed over
/// another (an editor's atomic save, a link swapped by a rename), a file
/// created or removed, and writes in place. An event reports activity only
/// when its name matters there (``WatchInterest``): a swap file or a build
/// log beside the scripts wakes the thread, and nothing more.
///
/// A watch follows its directory's inode, not its path: when the path is
/// another directory now (removed and created again, renamed away and
/// replaced), the next ``update(_:)`` watches the new one.
final class InotifyEventSource: FileEventSource {
    private let descriptor: Int32
    /// A watch: the real paths it was asked for, and which directory
    /// (device, inode) that was then.
    private struct Watch {
        var paths: Set<String>
        var identity: FileIdentity
    }
    private var watches: [Int32: Watch] = [:]
    private var descriptors: [String: Int32] = [:]
    private var interests: [String: WatchInterest] = [:]
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// What a directory watch reports (never following a link: the paths
    /// are real; one that became a link is watched again on the next scan).
    private static let mask = UInt32(
        IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB
            | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)

    /// Uses (and closes, with `close()`) an inotify instance made with
    /// `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`.
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func update(_ scan: WatchScan) -> Bool {
        interests = scan.interests
        var replaced = false
        for (path, wd) in descriptors where interests[path] == nil {
            forget(path, watch: wd)
        }
        for path in interests.keys {
            let identity = FileIdentity(path: path).flatMap { $0.isDirectory ? $0 : nil }
            if let wd = descriptors[path] {
                if let identity, watches[wd]?.identity == identity { continue }
                // Another directory (or none) at this path now.
                forget(path, watch: wd)
                replaced = true
            }
            guard let identity else { continue }
            let wd = inotify_add_watch(descriptor, path, Self.mask)
            guard wd >= 0 else { continue }
            // Another path of an inode already watched shares its watch.
            watches[wd, default: Watch(paths: [], identity: identity)].paths.insert(path)
            descriptors[path] = wd
        }
        return replaced
    }

    /// Stops watching `path` (and the inode, when no other path shares it).
    private func forget(_ path: String, watch wd: Int32) {
        descriptors[path] = nil
        watches[wd]?.paths.remove(path)
        if watches[wd]?.paths.isEmpty ?? false {
            watches[wd] = nil
            inotify_rm_watch(descriptor, wd)
        }
    }

    func wait(timeout: Duration, stopDescriptor: Int32) -> FileEventWake {
        let ready = pollReadable([stopDescriptor, descriptor], timeout: timeout)
        if ready.contains(stopDescriptor) { return .stopRequested }
        guard ready.contains(descriptor) else { return .quiet }
        var activity = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            let header = 16  // wd, mask, cookie, len: four 32-bit fields
            while offset + header <= count {
                let (wd, eventMask, length) = buffer.withUnsafeBytes { raw in
                    (raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                     raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let nameBytes = buffer[(offset + header)..<min(offset + header + length, count)]
                offset += header + length
                if eventMask & UInt32(IN_Q_OVERFLOW) != 0 {
                    // Events were lost: anything may have changed.
                    activity = true
                    continue
                }
                guard let watch = watches[wd] else { continue }
                if eventMask & UInt32(IN_IGNORED) != 0 {
                    // The directory went (removed, or on another file
                    // system now): look again, and watch what is there.
                    watches[wd] = nil
                    for path in watch.paths where descriptors[path] == wd { descriptors[path] = nil }
                    activity = true
                    continue
                }
                guard !activity else { continue }
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                let isDirectory = eventMask & UInt32(IN_ISDIR) != 0
                activity = watch.paths.contains { path in
                    interests[path]?.matters(name, in: path, isDirectory: isDirectory) ?? true
                }
            }
        }
        return activity ? .activity : .quiet
    }

    func close() {
        Glibc.close(descriptor)
    }
}
#endif
