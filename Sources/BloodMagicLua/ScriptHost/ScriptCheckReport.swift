/// What one run of ``ScriptChecker`` found, and what it could not see.
///
/// Without the app's manifest the check cannot tell a Swift class the app
/// exposes, or a Swift container it declares, from a misspelled name: such
/// a name is not a problem (the scripts may run cleanly in the app), so it
/// is listed in ``uncheckedNames`` instead, and the initializers that use
/// it are not run. A name that comes close to one the scripts define is
/// still reported, with the closest name.
public struct ScriptCheckReport: Sendable, Equatable {
    /// Errors and warnings, sorted by file and line.
    public var problems: [ScriptProblem]
    /// Names the scripts use that neither they nor the manifest define, and
    /// that nothing defined comes close to: the app's, probably. Sorted;
    /// always empty when the check was given a manifest.
    public var uncheckedNames: [String]

    /// A report of `problems`, and of `uncheckedNames` the check could not see.
    public init(problems: [ScriptProblem], uncheckedNames: [String] = []) {
        self.problems = problems
        self.uncheckedNames = uncheckedNames
    }

    /// Whether the check found no error and no warning.
    public var isClean: Bool { problems.isEmpty }

    /// The one-line note a tool prints about ``uncheckedNames`` (nil when
    /// there are none): at most `listing` names, then how many more.
    public func uncheckedNote(listing: Int = 5) -> String? {
        guard !uncheckedNames.isEmpty else { return nil }
        var names = uncheckedNames.prefix(listing).joined(separator: ", ")
        if uncheckedNames.count > listing { names += " and \(uncheckedNames.count - listing) more" }
        let noun = uncheckedNames.count == 1 ? "name" : "names"
        return "note: \(uncheckedNames.count) \(noun) the scripts use may be the app's (\(names)); "
            + "without the app's manifest they were not checked (give check the manifest: --manifest FILE)"
    }
}
