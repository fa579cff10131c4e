import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One property-list file of preferences, the storage of
/// ``PropertyListFilePreferenceStore`` and, on Linux, of
/// ``UserDefaultsPreferenceStore``.
///
/// A write takes the in-process lock and an exclusive `flock` on
/// `<file>.lock`, re-reads the file, applies the change, writes the whole
/// dictionary to `.<file>.tmp` beside it, `fsync`s it, renames it over the
/// file and `fsync`s the folder. So a write is durable when it returns, a
/// crash or a kill at any moment leaves the old file or the new one (never
/// a truncated one), and two processes writing different keys keep both.
///
/// The file is a **binary** property list: it keeps every value exactly —
/// dates to the bit (an XML property list keeps whole seconds), every
/// Double (NaN, infinities, -0.0, subnormals), 64-bit integers, strings
/// and keys of any Unicode. XML files written before are still read.
///
/// A read parses the file again only when it changed (its inode, size or
/// times differ from the last parse), so reading preferences is cheap.
final class PropertyListFile: Sendable {
    /// The property-list file.
    let url: URL
    private let processLock = Lock(())
    private let cache = Lock<(stamp: FileStamp, values: [String: PreferenceValue])?>(nil)

    init(url: URL) {
        self.url = url
    }

    /// The largest property-list file read: 64 MiB (a file that says
    /// it is smaller may still read without end, as files of `/proc` do).
    static let maximumSize = 64 << 20

    /// Why `path` cannot be a property-list file (it is a directory, a
    /// device, a FIFO or a socket), or nil when it is a regular file or
    /// there is nothing there yet. Follows symbolic links.
    static func problem(atPath path: String) -> String? {
        var info = stat()
        guard !path.isEmpty, !path.utf8.contains(0), stat(path, &info) == 0 else { return nil }
        return kindProblem(info.st_mode)
    }

    /// `mode` in words when it is not a regular file's.
    private static func kindProblem(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "is a directory, not a property-list file"
        case S_IFIFO: return "is a FIFO (named pipe), not a property-list file"
        case S_IFCHR: return "is a character device, not a property-list file"
        case S_IFBLK: return "is a block device, not a property-list file"
        case S_IFSOCK: return "is a socket, not a property-list file"
        default: return "is a special file, not a property-list file"
        }
    }

    /// Everything in the file; empty when it does not exist.
    func read() throws -> [String: PreferenceValue] {
        try checkKind()
        let stamp = FileStamp(path: url.path)
        if let stamp, let hit = cache.withLock({ $0 }), hit.stamp == stamp { return hit.values }
        return try withLock {
            let stamp = FileStamp(path: url.path)
            let values = try parse()
            if let stamp { cache.withLock { $0 = (stamp, values) } }
            return values
        }
    }

    /// Applies `change` to the file's dictionary, durably (see the type).
    func update(_ change: (inout [String: PreferenceValue]) -> Void) throws {
        try checkKind()
        try withLock {
            var values = try parse()
            change(&values)
            try write(values)
            if let stamp = FileStamp(path: url.path) { cache.withLock { $0 = (stamp, values) } }
        }
    }

    /// Refuses a path that holds something other than a regular file,
    /// before anything is opened or locked beside it.
    private func checkKind() throws {
        if let problem = Self.problem(atPath: url.path) { throw failure(problem) }
    }

    private func failure(_ reason: String) -> SpellError {
        .preferenceEncodingFailed(key: url.path, type: "property list", reason: reason)
    }

    /// The file's bytes, or nil when it cannot be opened (it does not exist
    /// yet). Opened without blocking (a FIFO put there meanwhile would wait
    /// for a writer) and checked with `fstat` on the descriptor itself: only
    /// a regular file is read, and at most ``maximumSize`` bytes of it.
    private func contents() throws -> Data? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        if let problem = Self.kindProblem(info.st_mode) { throw failure(problem) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { posixRead(descriptor, $0.baseAddress!, $0.count) }
            if count > 0 {
                data.append(contentsOf: chunk[0..<count])
                if data.count > Self.maximumSize {
                    throw failure("the file is larger than \(Self.maximumSize >> 20) MiB, the largest preference file read")
                }
            } else if count == 0 {
                return data
            } else if errno != EINTR {
                return nil
            }
        }
    }

    private func parse() throws -> [String: PreferenceValue] {
        guard let data = try contents(), !data.isEmpty else { return [:] }
        if let problem = BinaryPropertyListCheck.problem(in: data) {
            throw SpellError.preferenceEncodingFailed(
                key: url.path, type: "property list", reason: "the file is not a property list: \(problem)")
        }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw SpellError.preferenceEncodingFailed(
                key: url.path, type: "property list", reason: "the file is not a property list: \(error.localizedDescription)")
        }
        guard case .dictionary(let values)? = PreferenceValue(propertyListObject: object) else {
            throw SpellError.preferenceEncodingFailed(
                key: url.path, type: "property list", reason: "the file does not hold a dictionary")
        }
        return values
    }

    private func write(_ values: [String: PreferenceValue]) throws {
        let object = values.mapValues(\.propertyListObject)
        let data: Data
        do {
            data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        } catch {
            throw SpellError.preferenceEncodingFailed(key: url.path, type: "property list", reason: "\(error)")
        }
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // One temporary name is enough: writers hold the exclusive lock, and
        // a leftover from a writer that was killed is simply overwritten.
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).tmp").path
        try writeFully(data, to: temporary)
        // Never rename over a device, a FIFO or a directory put at the
        // path since the check before the lock (as root, renaming over
        // `/dev/null` would replace the device).
        if let problem = Self.problem(atPath: url.path) {
            unlink(temporary)
            throw failure(problem)
        }
        guard rename(temporary, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw SpellError.preferenceEncodingFailed(key: url.path, type: "property list", reason: reason)
        }
        FileLocking.sync(directory.path)
    }

    /// Writes `data` to a new file at `path` and flushes it to the disk.
    private func writeFully(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw writeError(path) }
        defer { close(descriptor) }
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let written = posixWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw writeError(path)
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw writeError(path) }
    }

    private func writeError(_ path: String) -> SpellError {
        .preferenceEncodingFailed(key: url.path, type: "property list", reason: "\(path): \(String(cString: strerror(errno)))")
    }

    private func withLock<T>(_ body: () throws -> T) throws -> T {
        var result: T?
        try processLock.withLock { _ in
            result = try FileLocking.withExclusiveLock(beside: url, body)
        }
        return result!
    }
}

/// `read(2)`, named apart from the `read` method in scope.
@inline(__always)
private func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// `write(2)`, named apart from the `write` method in scope.
@inline(__always)
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

/// What tells whether a file changed since it was last read: a write
/// renames a new file over it, which changes the inode and the times.
struct FileStamp: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: timespec
    let changed: timespec

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modified = info.st_mtimespec
        changed = info.st_ctimespec
        #else
        modified = info.st_mtim
        changed = info.st_ctim
        #endif
    }

    static func == (lhs: FileStamp, rhs: FileStamp) -> Bool {
        lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
            && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
            && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
    }
}
