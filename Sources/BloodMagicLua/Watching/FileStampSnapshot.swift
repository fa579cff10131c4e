import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat` says of a file, enough to notice that it changed: another
/// inode (a file renamed over it), another size, another modification time
/// (to the nanosecond), or its appearance or disappearance.
struct FileStamp: Equatable {
    var inode: UInt64
    var size: Int64
    var seconds: Int
    var nanoseconds: Int

    /// The stamp of the file at `path`, or nil when there is none.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        seconds = Int(info.st_mtimespec.tv_sec)
        nanoseconds = Int(info.st_mtimespec.tv_nsec)
        #else
        seconds = Int(info.st_mtim.tv_sec)
        nanoseconds = Int(info.st_mtim.tv_nsec)
        #endif
    }
}

/// The stamps of everything a set of targets names: the target files, and
/// every `*.lua` file directly in each Lua directory. Comparing two
/// snapshots gives the paths that changed. Used by the polling watcher and,
/// after the system says "something changed here", by the Dispatch one.
struct FileStampSnapshot: Equatable {
    private(set) var stamps: [String: FileStamp] = [:]

    /// At most this many `*.lua` files are stamped per directory.
    static let maxFilesPerDirectory = 4096

    /// Stamps what `targets` names now.
    init(_ targets: WatchTargets) {
        for file in targets.files {
            if let stamp = FileStamp(path: file) { stamps[file] = stamp }
        }
        for directory in targets.luaDirectories {
            // The directory itself: its appearance or disappearance is a change.
            if let stamp = FileStamp(path: directory) { stamps[directory] = Self.directoryStamp(stamp) }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for name in names.lazy.filter({ $0.hasSuffix(".lua") }).prefix(Self.maxFilesPerDirectory) {
                let path = ScriptPath.join(directory, name)
                if let stamp = FileStamp(path: path) { stamps[path] = stamp }
            }
        }
    }

    /// A directory's stamp without its times and size, which change with
    /// every file written in it.
    private static func directoryStamp(_ stamp: FileStamp) -> FileStamp {
        var stamp = stamp
        stamp.size = 0
        stamp.seconds = 0
        stamp.nanoseconds = 0
        return stamp
    }

    /// The paths whose stamp differs between `self` and `newer`, appeared or gone.
    func changes(to newer: FileStampSnapshot) -> [String] {
        var changed: [String] = []
        for (path, stamp) in newer.stamps where stamps[path] != stamp { changed.append(path) }
        for path in stamps.keys where newer.stamps[path] == nil { changed.append(path) }
        return changed.sorted()
    }
}
