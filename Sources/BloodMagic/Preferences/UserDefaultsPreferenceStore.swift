import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The default preference store: Foundation's `UserDefaults`.
///
/// Each write is durable before `setValue` returns. On Linux,
/// swift-corelibs-foundation writes the domain's property list only on
/// `synchronize()`, to `$XDG_CONFIG_HOME/<domain>.plist` (or
/// `$HOME/.config/<domain>.plist`); `synchronize()` re-reads the file and
/// merges this process's changed keys into it. The store therefore runs
/// set + synchronize while holding an exclusive `flock` on
/// `<domain>.plist.lock` beside the file, so two processes writing
/// different keys of the same domain never lose each other's writes, then
/// `fsync`s the file. On Apple platforms UserDefaults (cfprefsd) already
/// persists and merges; the store only calls `synchronize()`.
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
    /// UserDefaults is not Sendable on every platform, so the store keeps
    /// the suite name and asks Foundation for the (shared) instance per call.
    private var defaults: UserDefaults {
        suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
    }
    private let writeLock = Mutex(())

    /// A store over `UserDefaults(suiteName:)`, or `.standard` when nil. A
    /// suite name that is not a valid ``PreferenceSuiteName`` gives a store
    /// that refuses every write (see ``suiteError``).
    public init(suiteName: String? = nil) {
        self.suiteName = suiteName
        if let suiteName, let reason = PreferenceSuiteName.problem(with: suiteName) {
            self.suiteError = PreferenceSuiteError(suite: suiteName, reason: reason)
            self.fileURL = nil
            return
        }
        self.suiteError = nil
        #if os(Linux) || os(Android) || os(FreeBSD)
        let domain = suiteName ?? Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        self.fileURL = UserDefaultsPreferenceStore.preferencesDirectory()
            .appendingPathComponent("\(domain).plist")
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
        return defaults.object(forKey: key).flatMap(PreferenceValue.init(propertyListObject:))
    }

    /// Stores `value` under `key` (nil removes it) and makes it durable
    /// before returning, merging safely with other processes' writes.
    public func setValue(_ value: PreferenceValue?, forKey key: String) throws {
        if let suiteError { throw suiteError }
        try writeLock.withLock { _ in
            try withFileLock {
                let defaults = self.defaults
                if let value {
                    defaults.set(value.propertyListObject, forKey: key)
                } else {
                    defaults.removeObject(forKey: key)
                }
                defaults.synchronize()
                syncFileToDisk()
            }
        }
    }

    /// Runs `body` holding an exclusive lock on `<domain>.plist.lock`.
    private func withFileLock(_ body: () throws -> Void) throws {
        guard let fileURL else { return try body() }
        try FileLocking.withExclusiveLock(beside: fileURL, body)
    }

    /// Flushes the property list file and its directory to the disk.
    private func syncFileToDisk() {
        guard let fileURL else { return }
        FileLocking.sync(fileURL.path, fileURL.deletingLastPathComponent().path)
    }
}
