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
    private let processLock = Mutex(())
    private let cache = Mutex<(stamp: FileStamp, values: [String: PreferenceValue])?>(nil)

    init(url: URL) {
        self.url = url
    }

    /// Everything in the file; empty when it does not exist.
    func read() throws -> [String: PreferenceValue] {
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
        try withLock {
            var values = try parse()
            change(&values)
            try write(values)
            if let stamp = FileStamp(path: url.path) { cache.withLock { $0 = (stamp, values) } }
        }
    }

    private func parse() throws -> [String: PreferenceValue] {
        guard let data = try? Data(contentsOf: url), !data.isEmpty else { return [:] }
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
