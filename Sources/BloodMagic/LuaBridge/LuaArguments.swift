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
/// string, got number)`.
public struct LuaArguments {
    /// The stack, for raw access; argument `n` is at ``stackIndex(of:)``.
    public let stack: LuaStack
    /// `Type.member`, for messages.
    public let function: String
    /// The declared argument names, when the member declared them.
    let names: [String]?
    /// The stack index just below argument 1.
    let base: Int32
    /// How many arguments the call passed (a table of named arguments counts as one).
    public let count: Int
    /// Whether the arguments come as one table of named arguments.
    public let isNamed: Bool

    init(stack: LuaStack, function: String, names: [String]?, base: Int32, allowsNamed: Bool) {
        self.stack = stack
        self.function = function
        self.names = names
        self.base = base
        let count = Int(lua_gettop(stack.L) - base)
        self.count = count
        self.isNamed = allowsNamed && count == 1 && lua_type(stack.L, base + 1) == LUA_TTABLE
            && lua_rawlen(stack.L, base + 1) == 0
    }

    /// The stack index of argument `n` (1-based).
    public func stackIndex(of n: Int) -> Int32 { base + Int32(n) }

    /// The name of argument `n`: the one given, else the declared one.
    private func name(_ n: Int, _ given: String?) -> String? {
        if let given { return given }
        guard let names, n >= 1, n <= names.count else { return nil }
        return LuaArity.bareName(names[n - 1])
    }

    /// Reads argument `n` as `T`; `name` is used in messages and, for a
    /// call with a table of named arguments, as the key to look up (it
    /// defaults to the name the member declared).
    public func get<T: LuaReadable>(_ n: Int, _ name: String? = nil, as type: T.Type = T.self) throws(LuaError) -> T {
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
            guard let key = self.name(n, name) else { return true }
            stack.ensureSpace(2)
            stack.push(key)
            defer { stack.pop() }
            return lua_rawget(stack.L, base + 1) <= LUA_TNIL
        }
        return n > count || lua_type(stack.L, stackIndex(of: n)) <= LUA_TNIL
    }

    /// Puts argument `n` at a readable index and runs `read`, turning its
    /// conversion error into one that names the function and the argument.
    private func withArgument<T>(
        _ n: Int, _ given: String?, _ read: (Int32) throws(LuaError) -> T
    ) throws(LuaError) -> T {
        let label = name(n, given)
        let top = lua_gettop(stack.L)
        defer { lua_settop(stack.L, top) }
        let index: Int32
        if isNamed {
            guard let label else {
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
            var reason = error.message
            if reason.hasSuffix("got nil") && isNamed { reason = "missing" }
            if isNamed {
                throw LuaError(.conversion, "\(function): bad argument '\(label!)' (\(reason))")
            }
            let quoted = label.map { " '\($0)'" } ?? ""
            throw LuaError(.conversion, "\(function): bad argument #\(n)\(quoted) (\(reason))")
        }
    }
}

/// Declared argument names: a trailing `?` marks an optional argument.
enum LuaArity {
    static func bareName(_ declared: String) -> String {
        declared.hasSuffix("?") ? String(declared.dropLast()) : declared
    }

    /// Throws `Type.member: expected 1 argument, got 3` when `count` is
    /// outside what `names` allow.
    static func check(_ count: Int, names: [String], function: String) throws(LuaError) {
        let maximum = names.count
        let minimum = names.lastIndex(where: { !$0.hasSuffix("?") }).map { $0 + 1 } ?? 0
        guard count < minimum || count > maximum else { return }
        let expected: String
        if minimum == maximum {
            expected = "\(maximum) argument" + (maximum == 1 ? "" : "s")
        } else {
            expected = "\(minimum) to \(maximum) arguments"
        }
        throw LuaError(.conversion, "\(function): expected \(expected), got \(count)")
    }
}
