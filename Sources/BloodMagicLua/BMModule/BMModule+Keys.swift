// Registry keys and containers from what Lua passes: a type and its
// protocols as a `SpellTypeKey`, a Lua class as a `ContainerDescriptor` with
// its superclass chain.

extension BMModule {
    /// The registry key for a declared type and protocol set.
    static func typeKey(type: String?, protocols: [String]?) -> SpellTypeKey {
        if let protocols {
            return SpellTypeKey(protocols: protocols + (type.map { [$0] } ?? []))
        }
        return SpellTypeKey(name: type ?? "")
    }

    /// The container of a Lua object: its class name and superclass chain.
    func container(named name: String, object: AnyObject?) -> ContainerDescriptor {
        var ancestry: [SpellTypeKey] = []
        let classes = self.classes
        var current = classes[name]?.superclass
        while let superclass = current, ancestry.count < 64 {
            ancestry.append(SpellTypeKey(name: superclass))
            current = classes[superclass]?.superclass
        }
        return ContainerDescriptor(object: object, key: SpellTypeKey(name: name), ancestry: ancestry)
    }

    /// Arguments 1-3 of a core function that resolves — type, protocols and
    /// container name — as the registry key of the type and the container's
    /// name (`Name` is `String?`, or `String` where a container is required).
    static func target<Name: LuaReadable>(_ lua: LuaStack, fname: String) throws -> (key: SpellTypeKey, containerName: Name) {
        let type: String? = try lua.argument(1, of: fname)
        let protocols: [String]? = try lua.argument(2, of: fname)
        let containerName: Name = try lua.argument(3, of: fname)
        return (typeKey(type: type, protocols: protocols), containerName)
    }

    /// The container of a resolution asked for from Lua: the Lua class
    /// `name`, with its ancestry; without a name, the Swift object `sender`,
    /// or no container at all (`(none)`) when the sender is a Lua table or nil.
    func container(named name: String?, sender: AnyObject?) -> ContainerDescriptor {
        if let name { return container(named: name, object: sender) }
        if let sender, !(sender is LuaObjectHandle) { return ContainerDescriptor(sender) }
        return ContainerDescriptor(object: sender, key: SpellTypeKey(name: "(none)"), ancestry: [])
    }
}
