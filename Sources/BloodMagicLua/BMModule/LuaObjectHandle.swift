/// A Lua object (an instance of a `bm.class`) as the spell engine sees it:
/// the sender handed to initializers and hooks, and the container of a
/// resolution. Pushing it back into Lua gives the same table.
public final class LuaObjectHandle: Sendable, CustomStringConvertible, SpellContainerNamed {
    /// The object's table.
    public let reference: LuaReference
    /// The object's class name (its container type in the registry).
    public let className: String

    init(reference: LuaReference, className: String) {
        self.reference = reference
        self.className = className
    }

    /// The class name: errors about the object name its Lua class.
    public var spellContainerName: String { className }

    /// `ClassName (Lua object)`.
    public var description: String { "\(className) (Lua object)" }
}
