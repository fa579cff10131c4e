import Synchronization

/// Revoked when its host unloads: the registrations that captured it then
/// refuse to run.
final class LoadToken: Sendable {
    private let revoked = Atomic<Bool>(false)

    /// Whether the host unloaded the registrations holding this token.
    var isRevoked: Bool { revoked.load(ordering: .acquiring) }

    /// Marks the token revoked.
    func revoke() { revoked.store(true, ordering: .releasing) }
}
