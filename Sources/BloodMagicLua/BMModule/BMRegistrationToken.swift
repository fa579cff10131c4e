/// What a `bm` registration carries so that `registration:unregister()` can
/// trust it: a sealed value (LuaStack+SealedValues.swift) holding the
/// registration's id, a full userdata with a metatable only Swift holds. A
/// script cannot make a userdata, so it cannot forge one: a table rebuilt by
/// hand from a real registration's metatable has no token, and `unregister`
/// refuses it with an error instead of converting whatever id it carries.
enum BMRegistrationToken {
    /// The registry key of the tokens' metatable: the address of this
    /// type's metadata, unique in the process and never dereferenced.
    static var metatableKey: UnsafeRawPointer {
        unsafeBitCast(BMRegistrationToken.self as Any.Type, to: UnsafeRawPointer.self)
    }

    /// Creates the tokens' metatable (once per state; `install` runs once).
    static func installMetatable(_ lua: LuaStack) {
        lua.installSealedMetatable(key: metatableKey, name: "bm.registration.token")
    }

    /// Pushes the token of `handle` and its id (a number, for display);
    /// returns 2, the count of values pushed.
    static func push(_ handle: SpellHandle, _ lua: LuaStack) -> Int32 {
        lua.pushSealed(handle.id, key: metatableKey)
        lua.push(handle.id)
        return 2
    }

    /// The registration id of the token at `index`, or nil when the value is
    /// anything but a token this state made.
    static func id(at index: Int32, _ lua: LuaStack) -> UInt64? {
        lua.sealedPayload(at: index, key: metatableKey)
    }
}
