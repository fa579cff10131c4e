import Synchronization

/// Property names derived from property wrappers' storage key paths.
///
/// `\ViewController._requestManager` describes itself with the storage
/// name; the property name is that name without the leading underscore.
/// Descriptions are costly, so names are cached per key path object (the
/// key path is kept alive by the cache, so its identity cannot be reused).
public enum SpellNames {
    private static let cache = Lock<[ObjectIdentifier: (keyPath: RetainedKeyPath, name: String)]>([:])

    /// The property name for a wrapper's storage key path.
    public static func propertyName(of keyPath: AnyKeyPath) -> String {
        let id = ObjectIdentifier(keyPath)
        if let hit = cache.withLock({ $0[id]?.name }) { return hit }
        let name = parsePropertyName(String(describing: keyPath))
        let retained = RetainedKeyPath(keyPath: keyPath)
        cache.withLock { $0[id] = (retained, name) }
        return name
    }

    /// "\\ViewController._loader" → "loader".
    static func parsePropertyName(_ description: String) -> String {
        var last = Substring(description)
        if let dot = description.lastIndex(of: ".") {
            last = description[description.index(after: dot)...]
        }
        if last.first == "_" { last = last.dropFirst() }
        return String(last)
    }

    /// The name of the property of `object` whose wrapper holds `cell`,
    /// found by reflection (used only for hooks and messages).
    static func propertyName(ofCell cell: AnyObject, in object: AnyObject) -> String {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                if let holder = child.value as? any SpellCellHolder, holder.cellObject === cell, let label = child.label {
                    return label.first == "_" ? String(label.dropFirst()) : label
                }
            }
            mirror = current.superclassMirror
        }
        return "(unknown property)"
    }

    /// The registry name of `object`'s container type: the name it gives
    /// itself (a script object), else its dynamic type's.
    @usableFromInline
    static func containerName(of object: AnyObject) -> String {
        (object as? any SpellContainerNamed)?.spellContainerName ?? SpellTypeKey(type(of: object)).name
    }
}

/// Keeps a key path object alive so that its `ObjectIdentifier`, used as a
/// cache key, cannot be reused by another object.
///
/// `@unchecked Sendable` invariant: the key path is never read or called
/// through this box, only retained; key path objects are immutable.
struct RetainedKeyPath: @unchecked Sendable {
    let keyPath: AnyKeyPath
}
