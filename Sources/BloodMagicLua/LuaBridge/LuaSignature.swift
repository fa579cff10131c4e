import CLua

/// The name and declared arguments of an exposed method or constructor,
/// worked out once when it is declared so that calls only compare integers.
@usableFromInline
final class LuaSignature {
    /// `Type.member`, for messages.
    let function: String
    /// The declared argument names without their `?` markers, or nil.
    let names: [String]?
    /// The fewest and most arguments a call may pass.
    @usableFromInline let minimum: Int
    @usableFromInline let maximum: Int

    /// - Parameter declared: argument names, a trailing `?` marking an
    ///   optional one; nil accepts any count.
    @usableFromInline
    init(function: String, declared: [String]?) {
        self.function = function
        guard let declared else {
            self.names = nil
            self.minimum = 0
            self.maximum = .max
            return
        }
        self.names = Self.names(declared)
        self.minimum = Self.required(declared)
        self.maximum = declared.count
    }

    /// The signature of a method with `arity` typed parameters: at most
    /// that many arguments. `declared` names them for messages and editor
    /// annotations, a `?` suffix marking one that may be left out (a
    /// missing argument reads as nil, which only an `Optional` accepts).
    @usableFromInline
    init(function: String, arity: Int, declared: [String]?) {
        self.function = function
        self.names = declared.map(Self.names)
        self.minimum = min(declared.map(Self.required) ?? arity, arity)  // names beyond the parameters name nothing
        self.maximum = arity
    }

    /// Declared names without their `?` markers.
    private static func names(_ declared: [String]) -> [String] {
        declared.map { $0.hasSuffix("?") ? String($0.dropLast()) : $0 }
    }

    /// How many declared arguments a call must pass: up to the last one
    /// without a `?`.
    private static func required(_ declared: [String]) -> Int {
        declared.lastIndex(where: { !$0.hasSuffix("?") }).map { $0 + 1 } ?? 0
    }

    /// The declared name of argument `n` (1-based), if any.
    func name(of n: Int) -> String? {
        guard let names, n >= 1, n <= names.count else { return nil }
        return names[n - 1]
    }

    /// Throws `Type.member: expected 1 argument, got 3` when `count` is out of range.
    @inlinable
    func check(count: Int) throws(LuaError) {
        if count < minimum || count > maximum { throw countError(count) }
    }

    /// Makes the stack of a typed method's call hold exactly the object and
    /// `maximum` arguments (see ``fitArguments(_:top:)``); one comparison
    /// when it already does.
    @inlinable @inline(__always)
    func fitArguments(_ stack: LuaStack) throws(LuaError) {
        let top = lua_gettop(stack.L)
        if _slowPath(top != Int32(truncatingIfNeeded: maximum) &+ 1) { try fitArguments(stack, top: top) }
    }

    /// For a typed method called with `top` stack values (the object and
    /// its arguments) instead of `maximum + 1`: pads missing arguments with
    /// nil, or throws `Type.member: expected 1 argument, got 3`.
    @usableFromInline @inline(never)
    func fitArguments(_ stack: LuaStack, top: Int32) throws(LuaError) {
        let wanted = Int32(truncatingIfNeeded: maximum) &+ 1
        if top > wanted { throw countError(Int(top) - 1) }
        lua_settop(stack.L, wanted)  // within the reserve every Swift entry starts with
    }

    /// `Type.member: bad argument #1 'x' (expected integer, got string)`;
    /// `label` names the argument instead of its declared name.
    @usableFromInline @inline(never)
    func badArgument(_ n: Int, label: String? = nil, _ error: LuaError) -> LuaError {
        let quoted = (label ?? name(of: n)).map { " '\($0)'" } ?? ""
        return LuaError(.conversion, "\(function): bad argument #\(n)\(quoted) (\(error.message))")
    }

    @usableFromInline
    func countError(_ count: Int) -> LuaError {
        let expected: String
        if minimum == maximum {
            expected = "\(maximum) argument" + (maximum == 1 ? "" : "s")
        } else {
            expected = "\(minimum) to \(maximum) arguments"
        }
        return LuaError(.conversion, "\(function): expected \(expected), got \(count)")
    }
}
