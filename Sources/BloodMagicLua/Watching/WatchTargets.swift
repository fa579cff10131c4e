import Foundation

/// What a ``FileChangeWatcher`` watches: directories in which any `*.lua`
/// file matters (`partials/`), trees in which any `*.lua` file at any depth
/// matters (a scripts directory: its startup scripts, and the modules
/// `require` may load from its subdirectories, including ones not created
/// yet), and single files (modules loaded with `require`, a script run by
/// `bmlua --watch`).
///
/// Paths are kept absolute and standardized (no `.`, `..` or doubled
/// slashes; symbolic links are not resolved: the watcher resolves them on
/// every scan, so that a link re-pointed elsewhere is followed), so that a
/// path it reports compares equal to the one a target names. Names that
/// begin with `.` (editors' lock links and swap files, Kubernetes' `..data`)
/// are never scripts: a file or subdirectory so named is no change.
package struct WatchTargets: Sendable, Equatable {
    /// Directories in which creating, changing, removing or renaming any
    /// `*.lua` file is a change.
    package private(set) var luaDirectories: Set<String>
    /// Directories in which any `*.lua` file, at any depth, is watched as
    /// in ``luaDirectories`` (subdirectories found on each scan, hidden
    /// ones skipped, links followed while they stay inside the tree).
    package private(set) var luaTrees: Set<String>
    /// Files whose change is a change.
    package private(set) var files: Set<String>

    /// Targets from paths as given (relative ones against the current directory).
    package init(
        luaDirectories: some Sequence<String> = [String](), luaTrees: some Sequence<String> = [String](),
        files: some Sequence<String> = [String]()
    ) {
        self.luaDirectories = Set(luaDirectories.map(Self.normalized))
        self.luaTrees = Set(luaTrees.map(Self.normalized))
        self.files = Set(files.map(Self.normalized))
    }

    /// Whether nothing is watched.
    package var isEmpty: Bool { luaDirectories.isEmpty && luaTrees.isEmpty && files.isEmpty }

    /// Whether `path` (absolute, standardized, as the targets name things)
    /// is one of the things these targets watch: a target file, a Lua
    /// directory or tree, a script in a Lua directory, or a script or
    /// subdirectory at any depth of a tree (no component hidden).
    /// A change that appears there is a change; one outside is not.
    package func covers(_ path: String) -> Bool {
        if files.contains(path) || luaDirectories.contains(path) || luaTrees.contains(path) { return true }
        let name = Self.name(of: path)
        if ScriptPath.isScriptName(name), luaDirectories.contains(Self.parent(of: path)) { return true }
        for root in luaTrees {
            let prefix = root.hasSuffix("/") ? root : root + "/"
            guard path.hasPrefix(prefix) else { continue }
            let below = path.dropFirst(prefix.count).split(separator: "/")
            if below.allSatisfy({ !$0.hasPrefix(".") }) { return true }
        }
        return false
    }

    /// The targets of both.
    package func union(_ other: WatchTargets) -> WatchTargets {
        var merged = self
        merged.luaDirectories.formUnion(other.luaDirectories)
        merged.luaTrees.formUnion(other.luaTrees)
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

    /// The last component of a path.
    static func name(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
