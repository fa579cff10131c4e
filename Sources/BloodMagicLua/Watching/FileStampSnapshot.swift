import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat` says of a file (through any links), enough to notice that
/// it changed: another file (device and inode: a file renamed over it, a
/// link re-pointed at another), another size, another modification or
/// status-change time (to the nanosecond: the status-change time moves with
/// every write, even one that restores the modification time, as
/// `cp -p` and `rsync -t` do), or its appearance or disappearance.
struct FileStamp: Equatable {
    var device: UInt64
    var inode: UInt64
    var isDirectory: Bool
    var size: Int64
    /// Modification time, seconds and nanoseconds.
    var modified: TimeStamp
    /// Status-change time, seconds and nanoseconds.
    var changed: TimeStamp

    struct TimeStamp: Equatable {
        var seconds: Int
        var nanoseconds: Int
        static let zero = TimeStamp(seconds: 0, nanoseconds: 0)
    }

    /// The stamp of the file at `path` (links followed), or nil when there is none.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    init(_ info: stat) {
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
        isDirectory = info.st_mode & S_IFMT == S_IFDIR
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modified = Self.nanoseconds(info.st_mtimespec)
        changed = Self.nanoseconds(info.st_ctimespec)
        #else
        modified = Self.nanoseconds(info.st_mtim)
        changed = Self.nanoseconds(info.st_ctim)
        #endif
    }

    private static func nanoseconds(_ time: timespec) -> TimeStamp {
        TimeStamp(seconds: Int(time.tv_sec), nanoseconds: Int(time.tv_nsec))
    }

    /// A directory's stamp: which directory it is, not its times and size,
    /// which change with every file written in it.
    var asDirectory: FileStamp {
        var stamp = self
        stamp.size = 0
        stamp.modified = .zero
        stamp.changed = .zero
        return stamp
    }
}

/// The stamps of everything a scan of some targets found, by the path the
/// targets name it by (links not resolved: `Scripts/x.lua`, not where it
/// leads). Comparing two snapshots gives the paths that changed.
struct FileStampSnapshot: Equatable {
    var stamps: [String: FileStamp] = [:]

    /// At most this many `*.lua` files are stamped per directory.
    static let maxFilesPerDirectory = 4096

    /// The paths whose stamp differs between `self` (made from `older`)
    /// and `newer` (made from `newerTargets`), appeared or gone, sorted.
    /// A path only one of the target sets covers is no change: when a
    /// reload requires a new module, the module is not reported as
    /// appeared; when a module is no longer required, not as gone.
    /// Linear in the stamps (times the trees, for `covers`).
    func changes(
        to newer: FileStampSnapshot, from olderTargets: WatchTargets, to newerTargets: WatchTargets
    ) -> [String] {
        let sameTargets = olderTargets == newerTargets
        var changed: [String] = []
        for (path, stamp) in newer.stamps {
            guard let old = stamps[path] else {
                if sameTargets || olderTargets.covers(path) { changed.append(path) }
                continue
            }
            if old != stamp { changed.append(path) }
        }
        for path in stamps.keys where newer.stamps[path] == nil {
            if sameTargets || newerTargets.covers(path) { changed.append(path) }
        }
        return changed.sorted()
    }
}

/// Which file a path is now: device and inode (and whether it is a
/// directory), through links or of the link itself.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
    var isDirectory: Bool

    /// The identity of what is at `path`, nil when there is nothing.
    init?(path: String, followingLinks: Bool = true) {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
        isDirectory = info.st_mode & S_IFMT == S_IFDIR
    }
}
