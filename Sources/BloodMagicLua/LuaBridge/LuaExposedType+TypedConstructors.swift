// Constructors whose arguments are typed Swift parameters: the bridge reads
// each argument as its parameter's type, by position or, from one table of
// named arguments, by its declared name:
//
//     .constructor(arguments: ["baseURL"]) { (baseURL: String) in RequestManager(baseURL: baseURL) }
//
// Lua calls it as `RequestManager.new("https://…")` or
// `RequestManager.new { baseURL = "https://…" }`. Because the parameters'
// types are known, the app's manifest records them, and `bmlua check`
// refuses an argument of the wrong type as the bridge does at run time.

extension LuaExposedType {
    /// `Name.new(a)` or `Name.new { <name> = a }`, with `a` read as `A`.
    ///
    /// - Parameter arguments: the parameter's name (a trailing `?` marks it
    ///   optional, which needs an `Optional` type), for named tables,
    ///   messages and the manifest.
    public func constructor<A: LuaReadable>(arguments: [String], _ body: @escaping (A) throws -> Root) -> Self {
        typedConstructor(arguments, [A.self]) { args in try body(args.get(1)) }
    }

    /// `Name.new(a, b)` or `Name.new { <name> = a, <name> = b }`.
    public func constructor<A: LuaReadable, B: LuaReadable>(
        arguments: [String], _ body: @escaping (A, B) throws -> Root
    ) -> Self {
        typedConstructor(arguments, [A.self, B.self]) { args in try body(args.get(1), args.get(2)) }
    }

    /// `Name.new(a, b, c)` or the same by name.
    public func constructor<A: LuaReadable, B: LuaReadable, C: LuaReadable>(
        arguments: [String], _ body: @escaping (A, B, C) throws -> Root
    ) -> Self {
        typedConstructor(arguments, [A.self, B.self, C.self]) { args in try body(args.get(1), args.get(2), args.get(3)) }
    }

    /// `Name.new(a, b, c, d)` or the same by name.
    public func constructor<A: LuaReadable, B: LuaReadable, C: LuaReadable, D: LuaReadable>(
        arguments: [String], _ body: @escaping (A, B, C, D) throws -> Root
    ) -> Self {
        typedConstructor(arguments, [A.self, B.self, C.self, D.self]) { args in
            try body(args.get(1), args.get(2), args.get(3), args.get(4))
        }
    }

    /// A constructor of typed parameters: the names must match the
    /// parameters one for one (a programming error otherwise, caught when
    /// the type is declared).
    private func typedConstructor(
        _ names: [String], _ types: [Any.Type], _ make: @escaping (LuaArguments) throws -> Root
    ) -> Self {
        precondition(
            names.count == types.count,
            "\(name).new: \(names.count) argument name(s) for \(types.count) typed parameter(s)")
        var copy = self
        copy.constructor = LuaExposedConstructor(names: names, acceptsNamedTable: true, argumentTypes: types) { try make($0) }
        return copy
    }
}
