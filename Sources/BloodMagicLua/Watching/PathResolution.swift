import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a path reaches the file it names: every directory entry looked up
/// on the way, through every symbolic link, and the real path at the end.
///
/// A path's meaning changes when one of those entries changes: a link
/// renamed over (`..data` in a Kubernetes volume, a `current` release link),
/// a directory renamed away or removed and created again. So a watcher
/// watches the real directory holding each entry, for that entry's name,
/// and resolves the path again when one changes.
struct PathResolution: Equatable {
    /// Each entry looked up: the real directory holding it and its name,
    /// in order (every component of the path, then of each link's
    /// destination).
    var lookups: [Lookup] = []
    /// The real path (no links, `.` or `..`), when every entry exists.
    var real: String?

    /// One directory entry looked up.
    struct Lookup: Hashable {
        /// The real directory the entry is in.
        var directory: String
        /// The entry's name.
        var name: String
    }

    /// At most this many links are followed for one path (as the kernel's
    /// `ELOOP` limit): a loop of links resolves to nothing.
    static let maxLinks = 40
}

/// What `lstat` says of a path, remembered for one scan: each entry is
/// looked up once however many paths go through it (a Kubernetes volume's
/// `..data` is on the way to each of its files).
struct LookupCache {
    /// A directory entry: missing, a symbolic link (with its destination),
    /// or anything else.
    enum Entry: Equatable {
        case missing
        case link(String)
        case other
    }

    private var entries: [String: Entry] = [:]

    /// The entry at `path` (absolute, real up to its last component).
    mutating func entry(_ path: String) -> Entry {
        if let known = entries[path] { return known }
        var info = stat()
        let found: Entry
        if lstat(path, &info) != 0 {
            found = .missing
        } else if info.st_mode & S_IFMT == S_IFLNK {
            found = Self.destination(of: path).map(Entry.link) ?? .missing
        } else {
            found = .other
        }
        entries[path] = found
        return found
    }

    /// What the link at `path` says (`readlink`), nil when it cannot be read.
    private static func destination(of path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// How `path` (absolute) resolves, from the root.
    mutating func resolve(_ path: String) -> PathResolution {
        resolve(components: path, from: "/")
    }

    /// How `relative` resolves from the real directory `base` (an absolute
    /// `relative` starts again from the root). Linear in the components
    /// and the links' (at most ``PathResolution/maxLinks`` links).
    mutating func resolve(components relative: String, from base: String) -> PathResolution {
        var resolution = PathResolution()
        var resolved = relative.hasPrefix("/") ? "/" : base
        // A stack: the next component last.
        var pending = Self.components(relative).reversed() as [Substring]
        var links = 0
        while let component = pending.popLast() {
            if component == "." { continue }
            if component == ".." {
                resolved = ScriptPath.directory(of: resolved)
                continue
            }
            let name = String(component)
            resolution.lookups.append(.init(directory: resolved, name: name))
            let candidate = ScriptPath.join(resolved, name)
            switch entry(candidate) {
            case .missing:
                return resolution
            case .link(let destination):
                links += 1
                guard links <= PathResolution.maxLinks else { return resolution }
                if destination.hasPrefix("/") { resolved = "/" }
                pending.append(contentsOf: Self.components(destination).reversed())
            case .other:
                resolved = candidate
            }
        }
        resolution.real = resolved
        return resolution
    }

    /// The non-empty components of a path.
    private static func components(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
