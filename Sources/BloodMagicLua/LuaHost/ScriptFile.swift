#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading script files by path, for ``LuaStack/loadFile(_:)``: any path a
/// user can type (`.`, `/`, a directory, an empty string, a trailing slash,
/// a missing file, a pipe, a device) gives either the file's bytes or a
/// ``LuaError`` of kind `.io` that says why, never a trap, a hang or
/// unbounded memory. Plain POSIX calls, no path arithmetic.
///
/// The file is opened with `O_NONBLOCK` (opening a FIFO that has no writer
/// would otherwise wait forever) and checked with `fstat` on the opened
/// descriptor, so what is read is what was checked, whatever a symbolic
/// link or a rename does to the path meanwhile: only a regular file is
/// read. A regular file can still read without end (`/proc/self/pagemap`
/// says size 0 and yields gigabytes), so at most ``maximumSize`` bytes are
/// read, whatever the file says its size is.
package enum ScriptFile {
    /// The largest script file read: 64 MiB. Larger files are refused.
    package static let maximumSize = 64 << 20

    /// The bytes of the file at `path`; `shown` is the name used in messages.
    static func read(_ path: String, shownAs shown: String) throws(LuaError) -> [UInt8] {
        guard !path.isEmpty else { throw LuaError(.io, "cannot open '': no file name given") }
        guard !path.utf8.contains(0) else { throw LuaError(.io, "cannot open \(shown): the name contains a NUL byte") }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { throw failure(shown) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(shown) }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFDIR:
            throw LuaError(.io, "cannot open \(shown): is a directory, not a script file")
        default:
            throw LuaError(.io, "cannot open \(shown): \(fileKind(info.st_mode)), not a regular file")
        }
        return try readAll(descriptor, limit: maximumSize, tooLarge: {
            LuaError(.io, "cannot read \(shown): larger than \(maximumSize >> 20) MiB, the most the host reads of a file")
        }, failed: { failure(shown) })
    }

    /// Everything on standard input up to its end (for `bmlua -`), at
    /// most ``maximumSize`` bytes.
    package static func readStandardInput() throws(LuaError) -> [UInt8] {
        try readAll(STDIN_FILENO, limit: maximumSize, tooLarge: {
            LuaError(.io, "cannot read standard input: larger than \(maximumSize >> 20) MiB, the largest script the host reads")
        }, failed: { failure("standard input") })
    }

    /// Everything `descriptor` yields up to its end, but never more than
    /// `limit` bytes: one byte more is `tooLarge()`. A descriptor that
    /// would block (a non-blocking pipe with nothing in it yet) is waited
    /// for with `poll`, so standard input may be a pipe. Linear in the
    /// bytes read.
    static func readAll(
        _ descriptor: Int32, limit: Int, tooLarge: () -> LuaError, failed: () -> LuaError
    ) throws(LuaError) -> [UInt8] {
        var bytes: [UInt8] = []
        var info = stat()
        if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 {
            bytes.reserveCapacity(min(Int(clamping: info.st_size), limit) + 1)
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let room = min(chunk.count, limit + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, room) }
            if count > 0 {
                bytes.append(contentsOf: chunk[0..<count])
                if bytes.count > limit { throw tooLarge() }
            } else if count == 0 {
                return bytes
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&waiting, 1, -1)
            } else if errno != EINTR {
                throw failed()
            }
        }
    }

    /// What kind of file `mode` is, in words.
    private static func fileKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "is a FIFO (named pipe)"
        case S_IFCHR: return "is a character device"
        case S_IFBLK: return "is a block device"
        case S_IFSOCK: return "is a socket"
        default: return "is a special file"
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
