extension LuaStack {
    /// Encodes `value` with a ``LuaEncoder`` and pushes the result.
    ///
    /// ```swift
    /// try lua.push(encoding: Config(servers: [...]))
    /// lua.setRawGlobal("config")
    /// ```
    public func push(encoding value: some Encodable) throws(LuaError) {
        try LuaEncoder().encode(value, into: self)
    }

    /// Decodes the value at `index` as `T` with a ``LuaDecoder``.
    public func decode<T: Decodable>(_ type: T.Type, at index: Int32) throws(LuaError) -> T {
        try LuaDecoder().decode(type, from: self, at: index)
    }
}
