/// A class whose objects cross into Lua as exposed userdata, so that it can
/// be a method argument, a result or a property value (`LuaConvertible`).
///
/// Expose the class in the state first (``LuaStack/expose(_:)``); pushing an
/// object of a class that is not exposed exposes it bare, under its name.
///
/// Conforming is needed only to use the class as a typed argument, result or
/// property of *other* exposed members. Exposing a class is enough for a Lua
/// initializer to serve Swift properties of that type.
public protocol LuaExposable: AnyObject, LuaPushable, LuaReadable {}

extension LuaExposable {
    /// Pushes the object's userdata (the same one every time).
    public func push(onto stack: LuaStack) {
        stack.push(exposed: self)
    }

    /// The object in the exposed userdata at `index`, with its identity.
    public static func read(from stack: LuaStack, at index: Int32) throws(LuaError) -> Self {
        guard let object = stack.exposedObject(at: index, as: Self.self) else {
            throw stack.mismatch(stack.exposedName(of: Self.self), at: index)
        }
        return object
    }
}
