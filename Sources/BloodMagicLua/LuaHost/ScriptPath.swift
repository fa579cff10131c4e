/// Path arithmetic for script paths as users type them, with plain string
/// operations: any input (`""`, `.`, `/`, `dir/`, `a//b.lua`) gives an
/// answer, never a trap.
public enum ScriptPath {
    /// The directory part of `path`, as `dirname` gives it: `.` for a bare
    /// name (or an empty path), `/` for a file in the root; trailing slashes
    /// are ignored (`dir/` is in `.`).
    public static func directory(of path: String) -> String {
        var bytes = Array(path.utf8)
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        var directory = bytes[..<slash]
        while directory.count > 1, directory.last == UInt8(ascii: "/") { directory.removeLast() }
        return directory.isEmpty ? "/" : String(decoding: directory, as: UTF8.self)
    }

    /// `name` inside `directory`: `directory/name`, with one slash between
    /// them whatever `directory` ends with; `name` alone for an empty directory.
    public static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        if directory.hasSuffix("/") { return directory + name }
        return directory + "/" + name
    }

    /// Whether a directory entry named `name` is a script the host loads or
    /// watches: `*.lua`, not hidden. A name beginning with `.` never is:
    /// editors' lock links (`.#x.lua`) and swap files, `rsync`'s and
    /// Kubernetes' hidden staging entries — as a shell's `*.lua` skips them.
    public static func isScriptName(_ name: String) -> Bool {
        name.hasSuffix(".lua") && !name.hasPrefix(".")
    }
}
