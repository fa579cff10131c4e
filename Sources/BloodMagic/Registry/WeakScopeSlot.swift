import Synchronization

/// A weak-scoped registration's storage: the object it made last, held
/// weakly, made again (once, under the slot's lock) when it is gone.
///
/// Made as a singleton is (``SingletonSlot``): the value is made with
/// `making` held, so that threads asking at once get one object; unlike a
/// singleton's, the reference can go away at any time, so every read takes
/// the lock that guards it (a weak reference cannot be read lock-free and
/// retained safely).
@usableFromInline
final class WeakScopeSlot: Sendable {
    /// The object last made (weakly), behind its own lock.
    private let current = Lock<WeakReference>(WeakReference())
    /// Held while a value is made, so that it is made once.
    private let making = Lock<Void>(())
    /// The step the cycle tracker shows while a value is made.
    private let label: String

    init(label: String) {
        self.label = label
    }

    /// The object, if one made before is still held by someone.
    var existing: AnyObject? {
        current.withLock { $0 }.object
    }

    /// The object made before if someone still holds it, else a new one made
    /// by `make` (unless another thread made one first). A value that is not
    /// a class instance is returned as it is and not kept.
    func get<Value>(_ make: () throws -> Value) throws -> Value {
        if let object = existing, let value = object as? Value { return value }
        // The value made is handed out of the lock through this box.
        var made: Value?
        // The tracker reports an initializer that needs its own weak value
        // as a cycle before the lock below is taken a second time.
        try Registry.trackResolution(container: label, property: "", object: self) {
            try making.withLock { _ throws in
                if let object = existing, let value = object as? Value {
                    made = value
                    return
                }
                let value = try make()
                if let object = Self.object(value) {
                    current.withLock { $0 = WeakReference(object: object) }
                }
                made = value
            }
        }
        return made.unsafelyUnwrapped
    }

    /// `value` as the class instance it is, or nil when it is not one (a
    /// struct boxed as `AnyObject` would be freed at once).
    private static func object<Value>(_ value: Value) -> AnyObject? {
        guard type(of: value as Any) is AnyObject.Type else { return nil }
        return value as AnyObject
    }
}

/// A weak reference, as a value a `Lock` can hold.
///
/// Sendable because of what it refers to, not by checking: the object is a
/// weak-scoped value, which the registry shares across threads by design,
/// as it shares a singleton (registering either is the registrant's
/// promise that the value is safe to share, see ``SpellScope/weak``); and
/// the reference itself is only read or replaced under `WeakScopeSlot`'s lock.
struct WeakReference: @unchecked Sendable {
    weak var object: AnyObject?
}
