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

    func add(_ info: LuaExposedTypeInfo) {
        all.append(info)
        tags.insert(info.tag)
        byName[info.name] = info
        byType[ObjectIdentifier(info.swiftType)] = info
        resolved.removeAll()
    }

    /// The registration for `type` or its nearest exposed superclass.
    func info(for type: AnyClass) -> LuaExposedTypeInfo? {
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
