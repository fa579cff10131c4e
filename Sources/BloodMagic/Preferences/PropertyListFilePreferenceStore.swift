import Foundation

/// A preference store in one property-list file at a path you choose
/// (`bmlua --preferences PATH`).
///
/// Every write takes an exclusive `flock` on `<path>.lock`, re-reads the file,
/// changes one key, writes a temporary file, `fsync`s it and renames it over
/// the old one, then `fsync`s the directory. So a write is durable when
/// `setValue` returns, a crash leaves either the old or the new file, and two
/// processes writing different keys never lose each other's writes. The
/// file is a binary property list, which keeps every value exactly (dates
/// to the bit, every Double, any string or key); see `PropertyListFile`.
public final class PropertyListFilePreferenceStore: PreferenceStore {
    /// The property-list file.
    public let fileURL: URL
    private let file: PropertyListFile

    /// A store in the file at `fileURL` (created on the first write).
    public init(fileURL: URL) {
        self.fileURL = fileURL
        self.file = PropertyListFile(url: fileURL)
    }

    /// The store of the suite `suite` in `directory`: the file
    /// `<directory>/<suite>.plist`, as UserDefaults names its domains. The
    /// suite must be a valid ``PreferenceSuiteName``, so the file (and its
    /// lock file) can only be in `directory`.
    public convenience init(directory: URL, suite: String) throws(PreferenceSuiteError) {
        try PreferenceSuiteName.validate(suite)
        self.init(fileURL: directory.appendingPathComponent(suite + ".plist", isDirectory: false))
    }

    /// The store of the suite `suite` beside this one: `<folder>/<suite>.plist`
    /// in this store's folder (see ``init(directory:suite:)``).
    public func store(forSuite suite: String) throws(PreferenceSuiteError) -> PropertyListFilePreferenceStore {
        try PropertyListFilePreferenceStore(directory: fileURL.deletingLastPathComponent(), suite: suite)
    }

    /// Why the file at `path` cannot hold preferences (it is a directory,
    /// a device, a FIFO or a socket), or nil when it is a regular file or
    /// does not exist yet: for tools that take the path from a user
    /// (`bmlua --preferences`). The store itself refuses such a file too.
    package static func fileProblem(atPath path: String) -> String? {
        PropertyListFile.problem(atPath: path)
    }

    /// The value stored under `key`, or nil (also when the file is missing or unreadable).
    public func value(forKey key: String) -> PreferenceValue? {
        (try? file.read())?[key]
    }

    /// Stores `value` under `key` (nil removes it), durably.
    public func setValue(_ value: PreferenceValue?, forKey key: String) throws {
        try file.update { $0[key] = value }
    }

    /// Everything in the file.
    public var allValues: [String: PreferenceValue] {
        (try? file.read()) ?? [:]
    }
}
