import Foundation
import Synchronization

/// Where @Preference properties keep their values.
public protocol PreferenceStore: Sendable {
    /// The value stored under `key`, or nil.
    func value(forKey key: String) -> PreferenceValue?
    /// Stores `value` under `key`; nil removes the key. When this returns
    /// the write is durable (for a persistent store).
    func setValue(_ value: PreferenceValue?, forKey key: String) throws
}

/// A preference store in memory, for tests.
public final class InMemoryPreferenceStore: PreferenceStore {
    private let values: Lock<[String: PreferenceValue]>

    /// A store holding `values` initially.
    public init(_ values: [String: PreferenceValue] = [:]) {
        self.values = Lock(values)
    }

    /// The value stored under `key`, or nil.
    public func value(forKey key: String) -> PreferenceValue? {
        values.withLock { $0[key] }
    }

    /// Stores `value` under `key`; nil removes it.
    public func setValue(_ value: PreferenceValue?, forKey key: String) {
        values.withLock { $0[key] = value }
    }

    /// Everything stored, for assertions.
    public var allValues: [String: PreferenceValue] {
        values.withLock { $0 }
    }
}
