#if os(Linux)
import Foundation
import Glibc

/// Linux: inotify on every directory the targets live in. Watching the
/// directories rather than the files sees a file renamed over another (an
/// editor's atomic save), a file created or removed, and writes in place.
final class InotifyEventSource: FileEventSource {
    private let descriptor: Int32
    /// Watch descriptor → the directory it watches.
    private var watched: [Int32: String] = [:]
    private var targets = WatchTargets()
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// What a directory watch reports.
    private static let mask = UInt32(
        IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB
            | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    /// Uses (and closes, with `close()`) an inotify instance made with
    /// `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`.
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func update(_ targets: WatchTargets) {
        self.targets = targets
        let wanted = targets.directories
        for (wd, directory) in watched where !wanted.contains(directory) {
            inotify_rm_watch(descriptor, wd)
            watched[wd] = nil
        }
        let have = Set(watched.values)
        for directory in wanted where !have.contains(directory) {
            // A directory that does not exist (yet) is seen through its
            // parent, when that is watched, and added on the next update.
            let wd = inotify_add_watch(descriptor, directory, Self.mask)
            if wd >= 0 { watched[wd] = directory }
        }
    }

    func wait(timeout: Duration, stopDescriptor: Int32) -> [String]? {
        let ready = pollReadable([stopDescriptor, descriptor], timeout: timeout)
        if ready.contains(stopDescriptor) { return nil }
        guard ready.contains(descriptor) else { return [] }
        var changed: Set<String> = []
        var overflowed = false
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
                if eventMask & UInt32(IN_Q_OVERFLOW) != 0 { overflowed = true; continue }
                guard let directory = watched[wd] else { continue }
                if eventMask & UInt32(IN_IGNORED) != 0 {
                    watched[wd] = nil
                    continue
                }
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                changed.insert(name.isEmpty ? directory : ScriptPath.join(directory, name))
            }
        }
        if overflowed {
            // Events were lost: everything may have changed.
            return Array(targets.files) + Array(targets.luaDirectories)
        }
        return changed.filter(targets.isRelevant).sorted()
    }

    func close() {
        Glibc.close(descriptor)
    }
}
#endif
