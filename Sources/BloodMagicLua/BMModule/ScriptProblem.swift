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
enum ClosestNames {
    /// The candidates closest to `name`, best first, at most `limit`.
    static func closest(to name: String, in candidates: some Sequence<String>, limit: Int = 1) -> [String] {
        let target = Array(name.lowercased().utf8)
        let allowed = target.count <= 4 ? 1 : (target.count <= 8 ? 2 : 3)
        let scored = Set(candidates).compactMap { candidate -> (Int, String)? in
            guard candidate != name else { return nil }
            let distance = editDistance(target, Array(candidate.lowercased().utf8))
            return distance <= allowed ? (distance, candidate) : nil
        }
        return scored.sorted { $0 < $1 }.prefix(limit).map(\.1)
    }

    /// ` (closest: X)` or the empty string.
    static func suffix(for name: String, in candidates: some Sequence<String>) -> String {
        closest(to: name, in: candidates).first.map { " (closest: \($0))" } ?? ""
    }

    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
