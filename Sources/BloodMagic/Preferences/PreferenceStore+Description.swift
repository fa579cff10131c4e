import Foundation

// How log messages (see Registry.logger) and tools name the built-in stores.

extension InMemoryPreferenceStore: CustomStringConvertible {
    /// "memory".
    public var description: String { "memory" }
}

extension PropertyListFilePreferenceStore: CustomStringConvertible {
    /// "file PATH".
    public var description: String { "file \(fileURL.path)" }
}

extension UserDefaultsPreferenceStore: CustomStringConvertible {
    /// "user defaults SUITE" (or "standard user defaults"), with its file
    /// where the platform keeps the domain in one.
    public var description: String {
        let domain = suiteName.map { "user defaults \($0)" } ?? "standard user defaults"
        return fileURL.map { "\(domain) (\($0.path))" } ?? domain
    }
}
