/// One problem `ScriptChecker` found, at a script position.
public struct ScriptProblem: Sendable, Equatable, Codable, CustomStringConvertible {
    /// How bad it is.
    public enum Severity: String, Sendable, Codable {
        /// The scripts cannot work as written.
        case error
        /// Probably a mistake: a shadowed registration, a hook for a property nobody declares.
        case warning
    }

    /// The file, with the whole path the scripts were given as.
    public var file: String
    /// The line, or 0 when unknown.
    public var line: Int
    /// How bad it is.
    public var severity: Severity
    /// What is wrong.
    public var message: String

    /// A problem at `file:line`.
    public init(file: String, line: Int, severity: Severity, message: String) {
        self.file = file
        self.line = line
        self.severity = severity
        self.message = message
    }

    /// `file:line: severity: message`, the form editors jump to.
    public var description: String { "\(file):\(line): \(severity.rawValue): \(message)" }
}

/// Names that come close to a name that was not found, for "closest"
/// suggestions: the same name in another case, then small edit distances.
///
/// O(total bytes of the candidates): each is lowercased once, and its
/// distance is the band of width 2 · 3 + 1 around the diagonal at most
/// (``NameSimilarity/editDistance(_:_:atMost:)``), where the full table of
/// two long names cost the product of their lengths.
enum ClosestNames {
    /// The candidates closest to `name`, best first, at most `limit`.
    static func closest(to name: String, in candidates: some Sequence<String>, limit: Int = 1) -> [String] {
        let target = Array(name.lowercased().utf8)
        let allowed = target.count <= 4 ? 1 : (target.count <= 8 ? 2 : 3)
        let scored = Set(candidates).compactMap { candidate -> (Int, String)? in
            // Lowercasing keeps an ASCII name's length: most are skipped here.
            guard candidate != name, candidate.utf8.count <= 4 * (target.count + allowed) else { return nil }
            let distance = NameSimilarity.editDistance(target, Array(candidate.lowercased().utf8), atMost: allowed)
            return distance.map { ($0, candidate) }
        }
        return scored.sorted { $0 < $1 }.prefix(limit).map(\.1)
    }

    /// ` (closest: X)` or the empty string.
    static func suffix(for name: String, in candidates: some Sequence<String>) -> String {
        closest(to: name, in: candidates).first.map { " (closest: \($0))" } ?? ""
    }
}
