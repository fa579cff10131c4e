#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a path cannot be used, in plain words from the file system itself
/// (`no such file or directory`, `not a directory; give the scripts
/// directory`), never a Foundation error domain and code.
package enum PathProblem {
    /// Why `path` is not a readable directory, or nil when it is one.
    package static func directory(_ path: String) -> String? {
        guard let mode = fileMode(path) else { return lastErrorDescription() }
        if mode & S_IFMT != S_IFDIR { return "not a directory; give the scripts directory" }
        if access(path, R_OK | X_OK) != 0 { return lastErrorDescription() }
        return nil
    }

    /// Why `path` is not a readable regular file, or nil when it is one.
    package static func file(_ path: String) -> String? {
        guard let mode = fileMode(path) else { return lastErrorDescription() }
        if mode & S_IFMT == S_IFDIR { return "is a directory, not a script file" }
        if access(path, R_OK) != 0 { return lastErrorDescription() }
        return nil
    }

    private static func fileMode(_ path: String) -> mode_t? {
        var info = stat()
        guard !path.isEmpty, stat(path, &info) == 0 else {
            if path.isEmpty { errno = ENOENT }
            return nil
        }
        return info.st_mode
    }

    /// strerror's words for errno, lower-cased as the rest of our messages.
    private static func lastErrorDescription() -> String {
        let code = errno
        guard let text = strerror(code) else { return "error \(code)" }
        let message = String(cString: text)
        return message.prefix(1).lowercased() + message.dropFirst()
    }
}
