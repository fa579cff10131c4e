import Foundation

/// Where `require` finds a module, checked the way the sandbox's `require`
/// checks it: a valid module name, and a regular file whose real path lies
/// inside the module directory's.
enum ModuleFiles {
    /// The longest module name `require` accepts (as the sandbox's).
    static let maxNameLength = 200

    /// Whether `name` is segments of `[A-Za-z0-9_-]` separated by single dots.
    static func isModuleName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maxNameLength else { return false }
        var segment = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                if segment == 0 { return false }
                segment = 0
            } else if (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                        || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") {
                segment += 1
            } else {
                return false
            }
        }
        return segment > 0
    }

    /// `<directory>/a/b.lua` or `<directory>/a/b/init.lua` for module
    /// `a.b`, whichever `require` would load; nil for neither.
    static func file(of name: String, in directory: String) -> String? {
        guard isModuleName(name), let root = realPath(directory) else { return nil }
        let relative = name.replacingOccurrences(of: ".", with: "/")
        for suffix in [".lua", "/init.lua"] {
            let shown = ScriptPath.join(directory, relative + suffix)
            guard let resolved = realPath(shown) else { continue }
            let prefix = root.hasSuffix("/") ? root : root + "/"
            var info = stat()
            if resolved.hasPrefix(prefix), stat(resolved, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                return shown
            }
        }
        return nil
    }

    private static func realPath(_ path: String) -> String? {
        guard !path.utf8.contains(0), let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
