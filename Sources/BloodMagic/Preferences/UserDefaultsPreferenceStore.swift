import Foundation

/// The default preference store: Foundation's `UserDefaults` domain.
///
/// Each write is durable before `setValue` returns, and values read back
/// exactly as written, in this process and in the next.
///
/// - On Linux, swift-corelibs-foundation keeps a domain in the property
///   list `$XDG_CONFIG_HOME/<domain>.plist` (or `$HOME/.config/…`), but
///   rewrites it in place, as XML: a process killed during a write leaves an
///   empty file (the next write then drops every earlier key), and dates
///   lose their fraction of a second. So on Linux the store reads and writes
///   that same file itself, the way ``PropertyListFilePreferenceStore``
///   does: under an exclusive `flock` on `<domain>.plist.lock`, a temporary
///   file renamed over the old one, binary property lists. Files Foundation
///   wrote before are read as they are. Do not write the same domain through
///   `UserDefaults` in the same process: the store does not see its
///   unsynchronized changes, and Foundation's in-place writes are not safe.
/// - On Apple platforms UserDefaults (cfprefsd) already persists atomically,
///   keeps values exactly and merges processes' writes; the store calls
///   `synchronize()` after each write.
///
/// A suite name becomes a file name, so it must be a valid
/// ``PreferenceSuiteName`` (`com.example.app`): a store made with any other
/// (`../x`, `/etc/x`) touches no file and no UserDefaults domain — it reads
/// nothing and every write throws the ``PreferenceSuiteError``.
public final class UserDefaultsPreferenceStore: PreferenceStore {
    /// The UserDefaults suite, or nil for the standard domain.
    public let suiteName: String?
    /// The property list file of the domain (Linux), for tools and tests;
    /// nil for a suite name that is not valid.
    public let fileURL: URL?
    /// Why the suite name was refused, if it was.
    public let suiteError: PreferenceSuiteError?
    #if os(Linux) || os(Android) || os(FreeBSD)
    /// The domain's file (nil for a refused suite name).
    private let file: PropertyListFile?
    #else
    /// UserDefaults is not Sendable on every platform, so the store keeps
    /// the suite name and asks Foundation for the (shared) instance per call.
    private var defaults: UserDefaults {
        suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
    }
    #endif

    /// A store over `UserDefaults(suiteName:)`, or `.standard` when nil. A
    /// suite name that is not a valid ``PreferenceSuiteName`` gives a store
    /// that refuses every write (see ``suiteError``).
    public init(suiteName: String? = nil) {
        self.suiteName = suiteName
        if let suiteName, let reason = PreferenceSuiteName.problem(with: suiteName) {
            self.suiteError = PreferenceSuiteError(suite: suiteName, reason: reason)
            self.fileURL = nil
            #if os(Linux) || os(Android) || os(FreeBSD)
            self.file = nil
            #endif
            return
        }
        self.suiteError = nil
        #if os(Linux) || os(Android) || os(FreeBSD)
        let domain = suiteName ?? Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        let fileURL = UserDefaultsPreferenceStore.preferencesDirectory()
            .appendingPathComponent("\(domain).plist")
        self.fileURL = fileURL
        self.file = PropertyListFile(url: fileURL)
        #else
        self.fileURL = nil
        #endif
    }

    /// A store over the suite `suiteName`, which must be a valid
    /// ``PreferenceSuiteName``.
    public convenience init(validatingSuiteName suiteName: String) throws(PreferenceSuiteError) {
        try PreferenceSuiteName.validate(suiteName)
        self.init(suiteName: suiteName)
    }

    /// The directory swift-corelibs-foundation keeps preference files in:
    /// `$XDG_CONFIG_HOME` if set and absolute, else `$HOME/.config`.
    public static func preferencesDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".config", isDirectory: true)
    }

    /// The value stored under `key`, or nil.
    public func value(forKey key: String) -> PreferenceValue? {
        guard suiteError == nil else { return nil }
        #if os(Linux) || os(Android) || os(FreeBSD)
        return (try? file?.read())?[key]
        #else
        return defaults.object(forKey: key).flatMap(PreferenceValue.init(propertyListObject:))
        #endif
    }

    /// Stores `value` under `key` (nil removes it) and makes it durable
    /// before returning, merging safely with other processes' writes.
    public func setValue(_ value: PreferenceValue?, forKey key: String) throws {
        if let suiteError { throw suiteError }
        #if os(Linux) || os(Android) || os(FreeBSD)
        try file?.update { $0[key] = value }
        #else
        let defaults = self.defaults
        if let value {
            defaults.set(value.propertyListObject, forKey: key)
        } else {
            defaults.removeObject(forKey: key)
        }
        defaults.synchronize()
        #endif
    }
}
