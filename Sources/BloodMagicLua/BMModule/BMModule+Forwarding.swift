@_spi(BloodMagicInternals) import BloodMagic
// `core.forward`: the Swift half of bm.initializer's `implements` field
// (see Registry+Forwarding).

extension BMModule {
    /// `core.forward(token, type, protocols)`: makes the initializer the
    /// registration token stands for serve `type` (or the protocol set) too.
    /// The names are capped and counted, and the forwarding registration is
    /// charged and tracked like any registration (a failing file's
    /// rollback removes it). Returns nothing.
    func forward(_ lua: LuaStack) throws -> Int32 {
        let fname = "bm.initializer"
        let registry = try liveRegistry()
        guard let id = BMRegistrationToken.id(at: 1, lua),
              let handle = tracking.withLock({ $0.handles[id]?.handle }) else {
            throw LuaError(.usage, "\(fname): field 'implements': the registration is gone")
        }
        var charge = try registrationBytes(lua, fname, [(2, "implements"), (3, "implements")])
        let type: String? = try lua.argument(2, of: fname)
        let protocols: [String]? = try lua.argument(3, of: fname)
        let key = BMModule.typeKey(type: type, protocols: protocols)
        let source = registrationSource(lua, charge: &charge)
        try lua.chargeSwiftMemory(charge, for: fname)
        guard let forwarding = registry.forward(type: key, to: handle, source: source) else {
            lua.releaseSwiftMemory(charge)
            throw LuaError(.usage, "\(fname): field 'implements': the registration is gone")
        }
        track(forwarding, charge: charge)
        return 0
    }
}
