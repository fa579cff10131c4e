import Foundation

/// Striped locks for the wrapper storage of resolving spells in unoptimized
/// code, where Swift applies the storage key path through the runtime and
/// copies the whole wrapper (cell and value) on every access: a copy made
/// while another thread stores the value can lose the value's reference.
/// Optimized code folds the getter's key path into field accesses and reads
/// without these locks. The setter and `$property` lock in every build:
/// they may be compiled in another configuration than the getter they must
/// exclude (the library's, not the client's), and they are off the hot path.
@usableFromInline
enum WrapperStorageLocks {
    static let stripes: [NSLock] = (0..<64).map { _ in NSLock() }

    @usableFromInline
    static func withLock<Result>(for object: AnyObject, _ body: () throws -> Result) rethrows -> Result {
        let stripe = Int(truncatingIfNeeded: UInt(bitPattern: ObjectIdentifier(object).hashValue) >> 4) & 63
        let lock = stripes[stripe]
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
