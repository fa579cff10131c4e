/// What a successful ``ScriptHost/reload()`` changed.
///
/// Registrations are matched between the old wiring and the new one by
/// what they are for (kind, type, container, property, scope): one only in
/// the new wiring was added, one only in the old removed, and one in both
/// replaced — or unchanged, when it comes from the same line of a file whose
/// content did not change.
public struct ScriptReloadReport: Sendable, CustomStringConvertible {
    /// The files whose content changed since the wiring in force was
    /// loaded (startup scripts, required modules, `partials/` templates),
    /// appeared or went; when a watcher saw a save that changed no byte, the
    /// files it saw.
    public var changedFiles: [String]
    /// Registrations the new scripts make that the old ones did not.
    public var added: [SpellEntry]
    /// Registrations the old scripts made that the new ones do not.
    public var removed: [SpellEntry]
    /// Registrations made again from a changed file or another line (as the
    /// new wiring lists them).
    public var replaced: [SpellEntry]
    /// Registrations made again from the same line of an unchanged file.
    /// Their singletons keep the values they made.
    public var unchanged: [SpellEntry]

    /// Creates a report.
    public init(
        changedFiles: [String], added: [SpellEntry], removed: [SpellEntry], replaced: [SpellEntry],
        unchanged: [SpellEntry]
    ) {
        self.changedFiles = changedFiles
        self.added = added
        self.removed = removed
        self.replaced = replaced
        self.unchanged = unchanged
    }

    /// `reloaded (changed: a.lua, b.lua): 1 added, 0 removed, 2 replaced, 5 unchanged`.
    public var description: String {
        let files = changedFiles.isEmpty ? "no file changed" : "changed: " + changedFiles.joined(separator: ", ")
        return "reloaded (\(files)): \(added.count) added, \(removed.count) removed, \(replaced.count) replaced, \(unchanged.count) unchanged"
    }

    /// What a registration is for, to match old and new ones.
    struct Identity: Hashable {
        let kind: SpellEntryKind
        let type: SpellTypeKey?
        let container: String
        let property: String?
        let scope: SpellScope?

        init(_ entry: SpellEntry) {
            kind = entry.kind
            type = entry.type
            container = "\(entry.container)"
            property = entry.property
            scope = entry.scope
        }
    }

    /// Matches `old` against `new`. `changed` are the files whose content
    /// changed. Returns the report and, for each new registration that is
    /// unchanged, the old one it stands for.
    static func compare(
        old: [SpellEntry], new: [SpellEntry], changedFiles changed: [String]
    ) -> (report: ScriptReloadReport, unchangedPairs: [(old: SpellEntry, new: SpellEntry)]) {
        var remaining: [Identity: [SpellEntry]] = [:]
        for entry in old { remaining[Identity(entry), default: []].append(entry) }
        let changedSet = Set(changed)
        var added: [SpellEntry] = []
        var replaced: [SpellEntry] = []
        var unchanged: [SpellEntry] = []
        var pairs: [(old: SpellEntry, new: SpellEntry)] = []
        for entry in new {
            let identity = Identity(entry)
            guard var candidates = remaining[identity], !candidates.isEmpty else {
                added.append(entry)
                continue
            }
            // The one from the same place, if any; else the first.
            let index = candidates.firstIndex { $0.source == entry.source } ?? 0
            let previous = candidates.remove(at: index)
            remaining[identity] = candidates
            if previous.source == entry.source, !changedSet.contains(file(of: entry.source)) {
                unchanged.append(entry)
                pairs.append((previous, entry))
            } else {
                replaced.append(entry)
            }
        }
        let removed = remaining.values.flatMap { $0 }.sorted { $0.handle.id < $1.handle.id }
        let report = ScriptReloadReport(
            changedFiles: changed, added: added, removed: removed, replaced: replaced, unchanged: unchanged)
        return (report, pairs)
    }

    /// The file of a `file:line` source.
    static func file(of source: String) -> String {
        LuaError.parseLocation(source + ":")?.0 ?? source
    }
}
