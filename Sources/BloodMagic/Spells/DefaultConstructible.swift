/// A type the spells may create with `init()` when no initializer is
/// registered (the seeds' `+new`, in the type system).
public protocol DefaultConstructible {
    /// Makes a default instance.
    init()
}
