/// The rules for the name of a preference suite (a store domain, such as
/// `bm.preference { suite = "com.example.app" }` or
/// `UserDefaultsPreferenceStore(suiteName:)`).
///
/// A suite becomes a file name (`<folder>/<suite>.plist` and its lock file),
/// so it is validated as strictly as a reverse-DNS domain: one or more labels
/// separated by single dots; each label 1 to 63 characters of ASCII letters,
/// digits, `-` and `_`, not starting or ending with `-`; at most 255
/// characters in all. So `com.example.app`, `group.com.example` and
/// `profile` are suites, and `../x`, `/etc/x`, `a..b`, `.hidden` and `a/b`
/// are not: a suite's files always stay in the store's folder.
public enum PreferenceSuiteName {
    /// The longest suite name, in characters.
    public static let maxLength = 255
    /// The longest label (the part between two dots), in characters.
    public static let maxLabelLength = 63

    /// Whether `name` is a valid suite name.
    public static func isValid(_ name: String) -> Bool {
        problem(with: name) == nil
    }

    /// Throws a ``PreferenceSuiteError`` that says what is wrong with `name`.
    public static func validate(_ name: String) throws(PreferenceSuiteError) {
        if let reason = problem(with: name) { throw PreferenceSuiteError(suite: name, reason: reason) }
    }

    /// What is wrong with `name`, or nil.
    static func problem(with name: String) -> String? {
        let bytes = Array(name.utf8)
        if bytes.isEmpty { return "it is empty" }
        if bytes.count > maxLength { return "it is longer than \(maxLength) characters" }
        var labelStart = 0
        for index in 0...bytes.count {
            guard index == bytes.count || bytes[index] == UInt8(ascii: ".") else {
                let byte = bytes[index]
                let allowed = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                if !allowed {
                    return byte == UInt8(ascii: "/") ? "it contains '/'" : "it contains a character other than letters, digits, '-', '_' and '.'"
                }
                continue
            }
            let label = bytes[labelStart..<index]
            if label.isEmpty {
                return name.contains("..") ? "it contains '..'" : "it has an empty label (a leading, trailing or doubled '.')"
            }
            if label.count > maxLabelLength { return "a label is longer than \(maxLabelLength) characters" }
            if label.first == UInt8(ascii: "-") || label.last == UInt8(ascii: "-") {
                return "a label starts or ends with '-'"
            }
            labelStart = index + 1
        }
        return nil
    }
}

/// A preference suite name that ``PreferenceSuiteName`` refuses.
public struct PreferenceSuiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name as given.
    public let suite: String
    /// What is wrong with it.
    public let reason: String

    /// Creates the error.
    public init(suite: String, reason: String) {
        self.suite = suite
        self.reason = reason
    }

    /// `invalid preference suite "../x": it contains '..' (a suite is ...)`.
    public var description: String {
        "invalid preference suite \"\(suite)\": \(reason) (a suite is a name like com.example.app: "
            + "labels of letters, digits, '-' and '_', separated by single dots)"
    }
}
