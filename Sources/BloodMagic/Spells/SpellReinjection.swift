// Re-injection on purpose: values already injected stay when the wiring
// changes (a script host reloads, registrations are replaced); resetting an
// object's spelled properties makes their next read resolve again, through
// the wiring in force then.

extension Registry {
    /// Forgets the values of `object`'s `@Lazy`, `@Injectable` and
    /// `@Partial` properties (its superclasses' included), so that each
    /// next read resolves again, through the wiring in force at that time —
    /// after a script reload, the new one. Returns the names of the
    /// properties that held a value.
    ///
    /// ```swift
    /// host.onReload { _ in registry.reset(screen) }   // re-inject after each reload
    /// ```
    ///
    /// A property being resolved at this moment on another thread is left
    /// alone. Other spells (`@Final`, `@Preference`, custom ones) are not
    /// touched; for one property use `$property.reset()`. The registry
    /// itself is not involved: each property resolves through the registry
    /// it always uses.
    @discardableResult
    public func reset(_ object: AnyObject) -> [String] {
        // Mirror copies each wrapper: under the object's storage lock, as
        // the spells' own writes are, so no copy sees half a store.
        let cells = WrapperStorageLocks.withLock(for: object) { () -> [(String, any ForgettableSpellCell)] in
            var found: [(String, any ForgettableSpellCell)] = []
            var mirror: Mirror? = Mirror(reflecting: object)
            while let current = mirror {
                for child in current.children {
                    guard let label = child.label, let storage = child.value as? any ResolvingSpellStorage else { continue }
                    let name = label.first == "_" ? String(label.dropFirst()) : label
                    found.append((name, storage.forgettableCell))
                }
                mirror = current.superclassMirror
            }
            return found
        }
        return cells.compactMap { name, cell in cell.forgetValue() ? name : nil }
    }
}

/// A spell's cell whose published value can be forgotten.
protocol ForgettableSpellCell {
    /// Marks a published value as not resolved; false when there was none
    /// (or it is being produced right now).
    func forgetValue() -> Bool
}

extension ResolvingCell: ForgettableSpellCell {
    func forgetValue() -> Bool {
        state.compareExchange(expected: Self.published, desired: Self.unresolved, ordering: .acquiringAndReleasing).exchanged
    }
}

extension ResolvingSpellStorage {
    /// The cell, as something whose value can be forgotten.
    var forgettableCell: any ForgettableSpellCell { cell }
}
