import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file-level durability the preference stores share: an exclusive
/// `flock` on a lock file next to the data, and `fsync` of files and folders.
enum FileLocking {
    /// Runs `body` holding an exclusive `flock` on `<file>.lock`, creating the
    /// folder and the lock file when needed.
    static func withExclusiveLock<T>(beside file: URL, _ body: () throws -> T) throws -> T {
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let lockPath = file.path + ".lock"
        let descriptor = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw lockError(lockPath) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw lockError(lockPath) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Flushes each path (a file or a folder) to the disk, ignoring paths that cannot be opened.
    static func sync(_ paths: String...) {
        for path in paths {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            fsync(descriptor)
            close(descriptor)
        }
    }

    private static func lockError(_ path: String) -> SpellError {
        .preferenceEncodingFailed(key: path, type: "lock file", reason: String(cString: strerror(errno)))
    }
}
