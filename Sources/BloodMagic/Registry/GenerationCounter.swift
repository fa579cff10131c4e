import Synchronization

/// A monotonically increasing counter, readable without a lock.
@usableFromInline
package final class GenerationCounter: Sendable {
    @usableFromInline let value = Atomic<UInt64>(0)
    private static let serials = Atomic<UInt64>(0)

    /// The current generation (acquire: state changed before a bump is visible).
    @inlinable
    package var current: UInt64 { value.load(ordering: .acquiring) }

    /// Marks a change.
    func bump() { value.add(1, ordering: .releasing) }

    /// A new registry serial number.
    static func nextRegistrySerial() -> UInt64 {
        serials.add(1, ordering: .relaxed).newValue
    }
}
