import CLua

/// The exposed types of one state, kept alive for as long as the state
/// (Lua holds unretained pointers to them), and the identity cache.
final class LuaExposedTypeRegistry {
    private(set) var byName: [String: LuaExposedTypeInfo] = [:]
    private(set) var byType: [ObjectIdentifier: LuaExposedTypeInfo] = [:]
    /// Subclasses resolved to their nearest exposed superclass.
    private var resolved: [ObjectIdentifier: LuaExposedTypeInfo] = [:]
    /// Every registration ever made, replaced ones included.
    private var all: [LuaExposedTypeInfo] = []
    private(set) var tags: Set<UnsafeRawPointer> = []
    /// Registry slot of the identity cache: object address -> userdata, weak values.
    var cacheSlot: Int32 = BM_LUA_NOREF

    // One-entry caches in front of the dictionary and set lookups, which
    // objects of one type crossing again and again hit every time.
    // `@exclusivity(unchecked)`: like everything in the state's core, these
    // are touched only by the thread inside the state, and never while an
    // inout access to them is open, so the dynamic check can only cost.
    @exclusivity(unchecked) private var lastClass: ObjectIdentifier?
    @exclusivity(unchecked) private var lastInfo: LuaExposedTypeInfo?
    /// `lastInfo`, for reads that retain nothing.
    @exclusivity(unchecked) private var lastUnretained: Unmanaged<LuaExposedTypeInfo>?
    /// A tag already found in `tags` (tags are never removed).
    @exclusivity(unchecked) private var lastTag: UnsafeRawPointer?

    func add(_ info: LuaExposedTypeInfo) {
        all.append(info)
        tags.insert(info.tag)
        byName[info.name] = info
        byType[ObjectIdentifier(info.swiftType)] = info
        resolved.removeAll()
        lastClass = nil
        lastInfo = nil
        lastUnretained = nil
    }

    /// Whether `tag` is the tag of a type exposed in this state.
    func isTag(_ tag: UnsafeRawPointer) -> Bool {
        if tag == lastTag { return true }
        guard tags.contains(tag) else { return false }
        lastTag = tag
        return true
    }

    /// The registration for `type` or its nearest exposed superclass.
    func info(for type: AnyClass) -> LuaExposedTypeInfo? {
        let id = ObjectIdentifier(type)
        if id == lastClass, let info = lastInfo { return info }
        guard let info = lookUp(type) else { return nil }
        lastClass = id
        lastInfo = info
        lastUnretained = Unmanaged.passUnretained(info)
        return info
    }

    /// ``info(for:)`` without retaining the type: for a caller that reads
    /// its fields at once (the registry keeps every type alive, see `all`).
    @inline(__always)
    func unretainedInfo(for type: AnyClass) -> Unmanaged<LuaExposedTypeInfo>? {
        if ObjectIdentifier(type) == lastClass, let last = lastUnretained { return last }
        return info(for: type).map { Unmanaged.passUnretained($0) }
    }

    private func lookUp(_ type: AnyClass) -> LuaExposedTypeInfo? {
        let id = ObjectIdentifier(type)
        if let info = byType[id] ?? resolved[id] { return info }
        var current: AnyClass? = _getSuperclass(type)
        while let candidate = current {
            if let info = byType[ObjectIdentifier(candidate)] {
                resolved[id] = info
                return info
            }
            current = _getSuperclass(candidate)
        }
        return nil
    }
}
