import ArgumentParser
import Foundation

/// Scripts given on the command line (`check`, `types`): one directory of
/// startup scripts, or script files.
enum ScriptPathArguments {
    /// Whether `path` names a directory.
    static func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }

    /// The directory when `paths` is exactly one directory; nil for files.
    static func directory(in paths: [String]) -> String? {
        paths.count == 1 && isDirectory(paths[0]) ? paths[0] : nil
    }

    /// Refuses a path that does not exist, and a directory given with other paths.
    static func validate(_ paths: [String]) throws {
        for path in paths where !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("no such file or directory: \(path)")
        }
        if paths.count > 1, paths.contains(where: isDirectory) {
            throw ValidationError("give one directory, or script files, not both")
        }
    }
}
