import CLua

/// The arguments of a call from Lua to an exposed constructor or method.
///
/// Arguments are numbered from 1 as in Lua, not counting the object of a
/// method call. A constructor called with one table of named arguments,
/// `RequestManager.new { baseURL = "…" }`, reads the same way: ``get(_:_:as:)``
/// then looks the name up in that table, so one constructor body serves both
/// `new("…")` and `new { baseURL = "…" }`.
///
/// A mismatch is a Lua error that names the function, the argument and the
/// expected type: `RequestManager.fetch: bad argument #1 'path' (expected
/// string, got number)`. Valid only during the call it was made for.
public struct LuaArguments {
    /// The stack, for raw access; argument `n` is at ``stackIndex(of:)``.
    /// Push above the arguments; never remove or replace the call's own
    /// slots: a method's object is kept alive by its slot during the call.
    public let stack: LuaStack
    /// Unowned and unsafe, to keep retains off the call path. Sound because
    /// a signature belongs to a member or constructor that the state's
    /// ``LuaExposedTypeRegistry`` keeps alive as long as the state, and this
    /// value lives only for the duration of one call into that state.
    @usableFromInline unowned(unsafe) let signature: LuaSignature
    /// The stack index just below argument 1.
    @usableFromInline let base: Int32
    /// How many arguments the call passed (a table of named arguments counts as one).
    public let count: Int
    /// Whether the arguments come as one table of named arguments.
    public let isNamed: Bool

    // Inlinable so that the signature is not passed at +1 (retained) on
    // every call, as a non-inlined initializer's arguments are.
    @inlinable
    init(stack: LuaStack, signature: LuaSignature, base: Int32, allowsNamed: Bool) {
        self.stack = stack
        self.signature = signature
        self.base = base
        let count = Int(stack.top - base)
        self.count = count
        self.isNamed = allowsNamed && count == 1 && Self.isNamedTable(stack, at: base + 1)
    }

    /// Whether the value at `index` is a table with no sequence part: a
    /// table of named arguments.
    @usableFromInline
    static func isNamedTable(_ stack: LuaStack, at index: Int32) -> Bool {
        lua_type(stack.L, index) == LUA_TTABLE && lua_rawlen(stack.L, index) == 0
    }

    /// `Type.member`, as messages name it.
    public var function: String { signature.function }

    /// The stack index of argument `n` (1-based).
    public func stackIndex(of n: Int) -> Int32 { base &+ Int32(clamping: n) }

    /// Reads argument `n` as `T`; `name` is used in messages and, for a
    /// call with a table of named arguments, as the key to look up (it
    /// defaults to the name the member declared).
    @inlinable @inline(__always)
    public func get<T: LuaReadable>(_ n: Int, _ name: String? = nil, as type: T.Type = T.self) throws(LuaError) -> T {
        if !isNamed && n >= 1 && n <= count {
            do {
                return try T.read(from: stack, at: base + Int32(truncatingIfNeeded: n))
            } catch {
                throw badArgument(n, name, error)
            }
        }
        return try getSlow(n, name)
    }

    /// ``get(_:_:as:)`` for a named, absent or out-of-range argument, out of line.
    @usableFromInline @inline(never)
    func getSlow<T: LuaReadable>(_ n: Int, _ name: String?) throws(LuaError) -> T {
        try withArgument(n, name) { (index) throws(LuaError) -> T in try T.read(from: stack, at: index) }
    }

    /// Decodes argument `n` (usually a table) as `T` with a ``LuaDecoder``.
    public func decode<T: Decodable>(_ n: Int, _ name: String? = nil, as type: T.Type = T.self) throws(LuaError) -> T {
        try withArgument(n, name) { (index) throws(LuaError) -> T in try stack.decode(T.self, at: index) }
    }

    /// Reads argument `n` as an exposed object of class `T` (or a subclass).
    public func object<T: AnyObject>(_ n: Int, _ name: String? = nil, as type: T.Type = T.self) throws(LuaError) -> T {
        try withArgument(n, name) { (index) throws(LuaError) -> T in
            guard let object = stack.exposedObject(at: index, as: T.self) else {
                throw stack.mismatch(stack.exposedName(of: T.self), at: index)
            }
            return object
        }
    }

    /// Whether argument `n` is absent or nil.
    public func isNil(_ n: Int, _ name: String? = nil) -> Bool {
        if isNamed {
            guard let key = name ?? signature.name(of: n) else { return true }
            stack.ensureSpace(2)
            stack.push(key)
            defer { stack.pop() }
            return lua_rawget(stack.L, base + 1) <= LUA_TNIL
        }
        return n > count || lua_type(stack.L, stackIndex(of: n)) <= LUA_TNIL
    }

    /// Puts argument `n` at a readable index (a named field, or nil for an
    /// absent one) and runs `read`, naming the argument in its error.
    @usableFromInline
    func withArgument<T>(_ n: Int, _ given: String?, _ read: (Int32) throws(LuaError) -> T) throws(LuaError) -> T {
        let top = lua_gettop(stack.L)
        defer { lua_settop(stack.L, top) }
        let index: Int32
        if isNamed {
            guard let label = given ?? signature.name(of: n) else {
                throw LuaError(.conversion, "\(function): argument #\(n) has no name; pass the arguments by position")
            }
            stack.ensureSpace(2)
            stack.push(label)
            lua_rawget(stack.L, base + 1)
            index = lua_gettop(stack.L)
        } else if n >= 1, n <= count {
            index = stackIndex(of: n)
        } else {
            stack.pushNil()  // an absent argument reads as nil
            index = lua_gettop(stack.L)
        }
        do {
            return try read(index)
        } catch {
            throw badArgument(n, given, error)
        }
    }

    /// `Type.member: bad argument #1 'path' (expected string, got number)`,
    /// or for named arguments `Type.new: bad argument 'path' (missing)`.
    @usableFromInline
    func badArgument(_ n: Int, _ given: String?, _ error: LuaError) -> LuaError {
        let label = given ?? signature.name(of: n)
        if isNamed, let label {
            let reason = error.message.hasSuffix("got nil") ? "missing" : error.message
            return LuaError(.conversion, "\(function): bad argument '\(label)' (\(reason))")
        }
        return signature.badArgument(n, label: label, error)
    }
}
