import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One look at what a set of ``WatchTargets`` names, links resolved now:
/// the stamps of its files (by the paths the targets name them by), and
/// what to watch to hear of a change: the real directories holding every
/// entry those paths go through, with the names that matter in each, and
/// the real files.
///
/// A watcher scans again after every burst of events and once a second
/// while idle, and compares: a link re-pointed (a Kubernetes volume's
/// `..data`, a release's `current`), a directory replaced, a module that
/// appeared in a new subdirectory all show as stamps that differ, and the
/// new scan says where to watch from then on.
struct WatchScan: Equatable {
    /// What was scanned.
    let targets: WatchTargets
    /// The stamps found.
    private(set) var snapshot = FileStampSnapshot()
    /// What matters in each real directory to watch.
    private(set) var interests: [String: WatchInterest] = [:]
    /// The real paths of the files stamped (where a file itself must be
    /// watched to hear of writes in place: kqueue).
    private(set) var realFiles: Set<String> = []

    /// At most this many directories are scanned per tree.
    static let maxTreeDirectories = 256
    /// At most this many files are stamped per scan.
    static let maxFiles = 16_384

    /// Scans `targets`. Linear in the directory entries listed and the
    /// components of the paths resolved (each entry looked up once), both
    /// bounded by the limits above.
    init(_ targets: WatchTargets) {
        self.targets = targets
        var cache = LookupCache()
        for directory in targets.luaDirectories.sorted() {
            _ = scanDirectory(directory, stamped: true, tree: nil, cache: &cache)
        }
        for root in targets.luaTrees.sorted() {
            scanTree(root, cache: &cache)
        }
        for file in targets.files.sorted() {
            let resolution = cache.resolve(file)
            note(resolution.lookups)
            guard let real = resolution.real, let info = Self.status(real) else { continue }
            snapshot.stamps[file] = FileStamp(info)
            realFiles.insert(real)
        }
    }

    /// Notes each entry looked up as a name that matters in its directory.
    private mutating func note(_ lookups: some Sequence<PathResolution.Lookup>) {
        for lookup in lookups {
            interests[lookup.directory, default: WatchInterest()].names.insert(lookup.name)
        }
    }

    /// Scans the Lua directory `named`: how its path resolves, its own
    /// stamp (when `stamped`), the stamp of each `*.lua` file in it (links
    /// followed). In a tree (`tree`: the tree's real root), returns its
    /// subdirectories (named, real), links to directories included.
    private mutating func scanDirectory(
        _ named: String, stamped: Bool, tree: String?, cache: inout LookupCache
    ) -> [(named: String, real: String)] {
        let resolution = cache.resolve(named)
        note(resolution.lookups)
        guard let real = resolution.real, let info = Self.status(real), Self.isDirectory(info) else { return [] }
        if stamped { snapshot.stamps[named] = FileStamp(info).asDirectory }
        interests[real, default: WatchInterest()].scripts = true
        if tree != nil { interests[real, default: WatchInterest()].subdirectories = true }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: real)) ?? []).sorted()
        var stampedHere = 0
        var subdirectories: [(named: String, real: String)] = []
        for name in names where !name.hasPrefix(".") {
            let isScript = ScriptPath.isScriptName(name)
            guard isScript || tree != nil else { continue }
            if isScript, stampedHere >= FileStampSnapshot.maxFilesPerDirectory || realFiles.count >= Self.maxFiles {
                continue
            }
            // Where the entry leads: itself, or a link's destination.
            var destination = ScriptPath.join(real, name)
            if case .link = cache.entry(destination) {
                let through = cache.resolve(components: name, from: real)
                note(through.lookups.dropFirst())
                guard let resolved = through.real else { continue }
                destination = resolved
            }
            guard let entryInfo = Self.status(destination) else { continue }
            if isScript, !Self.isDirectory(entryInfo) {
                snapshot.stamps[ScriptPath.join(named, name)] = FileStamp(entryInfo)
                realFiles.insert(destination)
                stampedHere += 1
            } else if !isScript, Self.isDirectory(entryInfo) {
                subdirectories.append((ScriptPath.join(named, name), destination))
            }
        }
        return subdirectories
    }

    /// Scans the tree at `root`, breadth first: at most
    /// ``maxTreeDirectories`` directories, each real directory once, links
    /// followed only to directories inside the tree's real root (as
    /// `require` allows).
    private mutating func scanTree(_ root: String, cache: inout LookupCache) {
        guard let rootReal = cache.resolve(root).real else {
            _ = scanDirectory(root, stamped: true, tree: nil, cache: &cache)
            return
        }
        var visited: Set<String> = [rootReal]
        var queue = [root]
        var next = 0
        while next < queue.count, next < Self.maxTreeDirectories {
            let directory = queue[next]
            next += 1
            for sub in scanDirectory(directory, stamped: next == 1, tree: rootReal, cache: &cache)
            where sub.real.hasPrefix(rootReal == "/" ? "/" : rootReal + "/") && visited.insert(sub.real).inserted {
                queue.append(sub.named)
            }
        }
    }

    /// `stat` of `path`, links followed; nil when there is nothing there.
    private static func status(_ path: String) -> stat? {
        var info = stat()
        return stat(path, &info) == 0 ? info : nil
    }

    private static func isDirectory(_ info: stat) -> Bool {
        info.st_mode & S_IFMT == S_IFDIR
    }
}

/// What matters in a directory a watcher watches.
struct WatchInterest: Equatable {
    /// Any `*.lua` entry not hidden (a Lua directory).
    var scripts = false
    /// Any subdirectory not hidden (a directory of a tree).
    var subdirectories = false
    /// Entries a watched path goes through (a link, a directory on the
    /// way, a target file), whatever their names.
    var names: Set<String> = []

    /// Whether an event on the entry `name` of the real directory
    /// `directory` may change what is watched. `isDirectory`: the event
    /// says the entry is a directory. An empty name is the directory itself.
    func matters(_ name: String, in directory: String, isDirectory: Bool) -> Bool {
        if name.isEmpty || names.contains(name) { return true }
        guard !name.hasPrefix(".") else { return false }
        if scripts, ScriptPath.isScriptName(name) { return true }
        guard subdirectories else { return false }
        if isDirectory { return true }
        // A link to a directory, or a directory the event did not say was one.
        var info = stat()
        return stat(ScriptPath.join(directory, name), &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether only named entries matter here (a directory on the way to
    /// what is watched, not a Lua directory).
    var isNamesOnly: Bool { !scripts && !subdirectories }

    /// What the entries ``names`` of `directory` are now (links not
    /// followed; a missing one absent): for a source whose events do not
    /// say which entry changed (kqueue), to tell whether one that matters did.
    func entryIdentities(in directory: String) -> [String: FileIdentity] {
        var found: [String: FileIdentity] = [:]
        for name in names {
            found[name] = FileIdentity(path: ScriptPath.join(directory, name), followingLinks: false)
        }
        return found
    }
}

