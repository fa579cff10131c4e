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
    /// How many registrations were made again from the same line of an
    /// unchanged file (their singletons keep the values they made). They are
    /// counted, not listed: a reload of thousands of registrations lists
    /// only the few that changed.
    public var unchangedCount: Int
    /// The host's ``ScriptHost/generation`` once the new wiring is in force.
    public var generation: UInt64

    /// Creates a report.
    public init(
        changedFiles: [String], added: [SpellEntry], removed: [SpellEntry], replaced: [SpellEntry],
        unchangedCount: Int, generation: UInt64 = 0
    ) {
        self.changedFiles = changedFiles
        self.added = added
        self.removed = removed
        self.replaced = replaced
        self.unchangedCount = unchangedCount
        self.generation = generation
    }

    /// `reloaded (changed: a.lua, b.lua): 1 added, 0 removed, 2 replaced, 5 unchanged`.
    public var description: String {
        let files = changedFiles.isEmpty ? "no file changed" : "changed: " + changedFiles.joined(separator: ", ")
        return "reloaded (\(files)): \(added.count) added, \(removed.count) removed, \(replaced.count) replaced, \(unchangedCount) unchanged"
    }
}
