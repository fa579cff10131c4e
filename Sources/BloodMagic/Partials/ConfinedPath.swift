#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files named by a name that may come from a script, found only below one
/// directory: partial templates (`partials/<Type>.lua`, `<Type>.json`).
///
/// The name must be a plain file name (``isPlainName(_:)``: no `/`, no `..`);
/// then the directory and the file are both resolved with `realpath`, and
/// the file is used only when it is a regular file whose real path lies
/// inside the directory's. So neither a name nor a symbolic link inside the
/// directory can lead to a file elsewhere. (The sandbox's `require` and the
/// host make the same check in C, `bm_confined_path` in CLuaHost; the engine
/// builds without Lua and has no C, so it keeps this Swift copy.)
package enum ConfinedPath {
    /// What ``resolve(_:in:)`` found.
    package enum Resolution: Equatable, Sendable {
        /// A regular file inside the directory, by its real path.
        case found(String)
        /// No such regular file (or the name is not a plain name).
        case missing
        /// The file exists, but its real path is outside the directory.
        case outside
        /// The directory itself does not exist.
        case noDirectory
    }

    /// The longest plain name, in bytes.
    package static let maxNameLength = 200

    /// Whether `name` can be one file name below a directory: 1 to 200
    /// bytes, none of them `/`, NUL or another control character, not
    /// starting with `.` and without `..` — so never a path, while type
    /// names such as `HeaderView`, `Outer.Inner`, `Box<Int>` and the
    /// protocol sets of JSON templates (`A&B`) stay usable.
    package static func isPlainName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= maxNameLength, bytes.first != UInt8(ascii: ".") else { return false }
        var previousDot = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") || byte < 0x20 || byte == 0x7F { return false }
            let isDot = byte == UInt8(ascii: ".")
            if isDot && previousDot { return false }
            previousDot = isDot
        }
        return true
    }

    /// Resolves the file `name` (which must pass ``isPlainName(_:)``) in `directory`.
    package static func resolve(_ name: String, in directory: String) -> Resolution {
        guard isPlainName(name), !directory.isEmpty, !directory.utf8.contains(0) else { return .missing }
        guard let root = realPath(directory) else { return .noDirectory }
        let candidate = root.hasSuffix("/") ? root + name : root + "/" + name
        guard let resolved = realPath(candidate) else { return .missing }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard resolved.hasPrefix(prefix) else { return .outside }
        var info = stat()
        guard stat(resolved, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .missing }
        return .found(resolved)
    }

    /// `realpath(3)` of `path`, or nil.
    private static func realPath(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
