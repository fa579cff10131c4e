import Foundation

/// What a ``FileChangeWatcher`` watches: directories in which any `*.lua`
/// file matters (a scripts directory, `partials/`) and single files (modules
/// loaded with `require`, a script run by `bmlua --watch`).
///
/// Paths are kept absolute and standardized (no `.`, `..` or doubled
/// slashes; symbolic links are not resolved), so that a path an event names
/// compares equal to the one a target names.
package struct WatchTargets: Sendable, Equatable {
    /// Directories in which creating, changing, removing or renaming any
    /// `*.lua` file is a change.
    package private(set) var luaDirectories: Set<String>
    /// Files whose change is a change.
    package private(set) var files: Set<String>

    /// Targets from paths as given (relative ones against the current directory).
    package init(luaDirectories: some Sequence<String> = [String](), files: some Sequence<String> = [String]()) {
        self.luaDirectories = Set(luaDirectories.map(Self.normalized))
        self.files = Set(files.map(Self.normalized))
    }

    /// The directories to watch: the Lua directories and each file's directory.
    package var directories: Set<String> {
        luaDirectories.union(files.map(Self.parent(of:)))
    }

    /// Whether nothing is watched.
    package var isEmpty: Bool { luaDirectories.isEmpty && files.isEmpty }

    /// Whether a change at `path` (absolute, standardized) matters: a
    /// target file, a `*.lua` file in a Lua directory, a Lua directory
    /// itself, or a directory on the way to a target (created, removed or
    /// renamed as a whole).
    package func isRelevant(_ path: String) -> Bool {
        if files.contains(path) || luaDirectories.contains(path) { return true }
        if path.hasSuffix(".lua"), luaDirectories.contains(Self.parent(of: path)) { return true }
        let prefix = path.hasSuffix("/") ? path : path + "/"
        return files.contains { $0.hasPrefix(prefix) } || luaDirectories.contains { $0.hasPrefix(prefix) }
    }

    /// The targets of both.
    package func union(_ other: WatchTargets) -> WatchTargets {
        var merged = self
        merged.luaDirectories.formUnion(other.luaDirectories)
        merged.files.formUnion(other.files)
        return merged
    }

    /// `path`, absolute and standardized.
    package static func normalized(_ path: String) -> String {
        URL(fileURLWithPath: path.isEmpty ? "." : path).standardizedFileURL.path
    }

    /// The directory part of an absolute path.
    static func parent(of path: String) -> String {
        ScriptPath.directory(of: path)
    }

    /// Every directory below `root` (itself included), breadth first,
    /// skipping hidden ones and symbolic links, at most `limit` of them:
    /// the Lua directories of a tree of scripts (`bmlua check --watch`).
    package static func directoryTree(_ root: String, limit: Int = 256) -> [String] {
        var found: [String] = []
        var queue = [normalized(root)]
        let manager = FileManager.default
        while !queue.isEmpty, found.count < limit {
            let directory = queue.removeFirst()
            found.append(directory)
            guard let names = try? manager.contentsOfDirectory(atPath: directory) else { continue }
            for name in names.sorted() where !name.hasPrefix(".") {
                let path = ScriptPath.join(directory, name)
                guard let attributes = try? manager.attributesOfItem(atPath: path),
                      attributes[.type] as? FileAttributeType == .typeDirectory else { continue }
                queue.append(path)
            }
        }
        return found
    }
}
