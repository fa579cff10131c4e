#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading script files by path, for ``LuaStack/loadFile(_:)``: any path a
/// user can type (`.`, `/`, a directory, an empty string, a trailing slash,
/// a missing file, a pipe) gives either the file's bytes or a ``LuaError``
/// of kind `.io` that says why, never a trap. Plain POSIX calls, no path
/// arithmetic.
enum ScriptFile {
    /// The bytes of the file at `path`; `shown` is the name used in messages.
    static func read(_ path: String, shownAs shown: String) throws(LuaError) -> [UInt8] {
        guard !path.isEmpty else { throw LuaError(.io, "cannot open '': no file name given") }
        guard !path.utf8.contains(0) else { throw LuaError(.io, "cannot open \(shown): the name contains a NUL byte") }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(shown) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(shown) }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw LuaError(.io, "cannot open \(shown): is a directory, not a script file")
        }
        var bytes: [UInt8] = []
        if (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 {
            bytes.reserveCapacity(Int(clamping: info.st_size))
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: chunk[0..<count])
            } else if count == 0 {
                return bytes
            } else if errno != EINTR {
                throw failure(shown)
            }
        }
    }

    /// `cannot open <shown>: <the system's reason>`, lower-cased as the
    /// rest of the messages (`no such file or directory`).
    private static func failure(_ shown: String) -> LuaError {
        let code = errno
        let text = strerror(code).map { String(cString: $0) } ?? "error \(code)"
        let reason = text.prefix(1).lowercased() + text.dropFirst()
        return LuaError(.io, "cannot open \(shown): \(reason)")
    }
}

/// `read(2)`, under a name that does not clash with ``ScriptFile/read(_:shownAs:)``.
@inline(__always)
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(descriptor, buffer, count)
    #elseif canImport(Musl)
    return Musl.read(descriptor, buffer, count)
    #else
    return Darwin.read(descriptor, buffer, count)
    #endif
}
