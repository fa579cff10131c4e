import CLua

// Methods whose arguments are typed Swift parameters: the bridge reads each
// argument as its parameter's type and pushes the result, so the body is
// plain Swift:
//
//     .method("abs") { (calculator, x: Int) in calculator.magnitude(x) }
//
// A call reads its arguments straight from their stack slots, with no
// `LuaArguments` in between: the fastest way for Lua to call Swift.

extension LuaExposedType {
    /// A method with no arguments besides the object: `obj:name()`.
    @inlinable
    public func method<Result: LuaPushable>(_ name: String, _ body: @escaping (Root) throws -> Result) -> Self {
        let signature = LuaSignature(function: "\(self.name).\(name)", arity: 0, declared: nil)
        return adding(
            LuaExposedMember(method: name, signature: signature, result: .value(Result.self), argumentTypes: []) { pointer, tag, stack in
                let object = try Self.typedSelf(pointer, tag, stack, signature, name)
                let result = try object._withUnsafeGuaranteedRef { try body($0) }
                stack.pushReserved(result)
                return 1
            })
    }

    /// A method with no arguments besides the object that returns nothing.
    @inlinable
    public func method(_ name: String, _ body: @escaping (Root) throws -> Void) -> Self {
        let signature = LuaSignature(function: "\(self.name).\(name)", arity: 0, declared: nil)
        return adding(
            LuaExposedMember(method: name, signature: signature, result: .nothing, argumentTypes: []) { pointer, tag, stack in
                let object = try Self.typedSelf(pointer, tag, stack, signature, name)
                try object._withUnsafeGuaranteedRef { try body($0) }
                return 0
            })
    }

    /// A method with one typed argument: `obj:name(a)`.
    ///
    /// A missing argument reads as nil (so an `Optional` parameter may be
    /// left out); more arguments than parameters is an error. Each argument
    /// that does not convert is named in the error:
    /// `Calculator.abs: bad argument #1 'x' (expected integer, got string)`.
    ///
    /// - Parameter arguments: the parameters' names for messages and editor
    ///   annotations, one per parameter.
    @inlinable
    public func method<A: LuaReadable, Result: LuaPushable>(
        _ name: String, arguments: [String]? = nil, _ body: @escaping (Root, A) throws -> Result
    ) -> Self {
        let signature = LuaSignature(function: "\(self.name).\(name)", arity: 1, declared: arguments)
        return adding(
            LuaExposedMember(method: name, signature: signature, result: .value(Result.self), argumentTypes: [A.self]) { pointer, tag, stack in
                let object = try Self.typedSelf(pointer, tag, stack, signature, name)
                let a: A = try Self.argument(1, stack, signature)
                let result = try object._withUnsafeGuaranteedRef { try body($0, a) }
                stack.pushReserved(result)
                return 1
            })
    }

    /// A method with one typed argument that returns nothing.
    @inlinable
    public func method<A: LuaReadable>(
        _ name: String, arguments: [String]? = nil, _ body: @escaping (Root, A) throws -> Void
    ) -> Self {
        let signature = LuaSignature(function: "\(self.name).\(name)", arity: 1, declared: arguments)
        return adding(
            LuaExposedMember(method: name, signature: signature, result: .nothing, argumentTypes: [A.self]) { pointer, tag, stack in
                let object = try Self.typedSelf(pointer, tag, stack, signature, name)
                let a: A = try Self.argument(1, stack, signature)
                try object._withUnsafeGuaranteedRef { try body($0, a) }
                return 0
            })
    }

    /// A method with two typed arguments: `obj:name(a, b)`.
    @inlinable
    public func method<A: LuaReadable, B: LuaReadable, Result: LuaPushable>(
        _ name: String, arguments: [String]? = nil, _ body: @escaping (Root, A, B) throws -> Result
    ) -> Self {
        let signature = LuaSignature(function: "\(self.name).\(name)", arity: 2, declared: arguments)
        return adding(
            LuaExposedMember(method: name, signature: signature, result: .value(Result.self), argumentTypes: [A.self, B.self]) { pointer, tag, stack in
                let object = try Self.typedSelf(pointer, tag, stack, signature, name)
                let a: A = try Self.argument(1, stack, signature)
                let b: B = try Self.argument(2, stack, signature)
                let result = try object._withUnsafeGuaranteedRef { try body($0, a, b) }
                stack.pushReserved(result)
                return 1
            })
    }

    /// A method with two typed arguments that returns nothing.
    @inlinable
    public func method<A: LuaReadable, B: LuaReadable>(
        _ name: String, arguments: [String]? = nil, _ body: @escaping (Root, A, B) throws -> Void
    ) -> Self {
        let signature = LuaSignature(function: "\(self.name).\(name)", arity: 2, declared: arguments)
        return adding(
            LuaExposedMember(method: name, signature: signature, result: .nothing, argumentTypes: [A.self, B.self]) { pointer, tag, stack in
                let object = try Self.typedSelf(pointer, tag, stack, signature, name)
                let a: A = try Self.argument(1, stack, signature)
                let b: B = try Self.argument(2, stack, signature)
                try object._withUnsafeGuaranteedRef { try body($0, a, b) }
                return 0
            })
    }

    /// A method with three typed arguments: `obj:name(a, b, c)`.
    @inlinable
    public func method<A: LuaReadable, B: LuaReadable, C: LuaReadable, Result: LuaPushable>(
        _ name: String, arguments: [String]? = nil, _ body: @escaping (Root, A, B, C) throws -> Result
    ) -> Self {
        let signature = LuaSignature(function: "\(self.name).\(name)", arity: 3, declared: arguments)
        return adding(
            LuaExposedMember(method: name, signature: signature, result: .value(Result.self), argumentTypes: [A.self, B.self, C.self]) { pointer, tag, stack in
                let object = try Self.typedSelf(pointer, tag, stack, signature, name)
                let a: A = try Self.argument(1, stack, signature)
                let b: B = try Self.argument(2, stack, signature)
                let c: C = try Self.argument(3, stack, signature)
                let result = try object._withUnsafeGuaranteedRef { try body($0, a, b, c) }
                stack.pushReserved(result)
                return 1
            })
    }

    /// A method with three typed arguments that returns nothing.
    @inlinable
    public func method<A: LuaReadable, B: LuaReadable, C: LuaReadable>(
        _ name: String, arguments: [String]? = nil, _ body: @escaping (Root, A, B, C) throws -> Void
    ) -> Self {
        let signature = LuaSignature(function: "\(self.name).\(name)", arity: 3, declared: arguments)
        return adding(
            LuaExposedMember(method: name, signature: signature, result: .nothing, argumentTypes: [A.self, B.self, C.self]) { pointer, tag, stack in
                let object = try Self.typedSelf(pointer, tag, stack, signature, name)
                let a: A = try Self.argument(1, stack, signature)
                let b: B = try Self.argument(2, stack, signature)
                let c: C = try Self.argument(3, stack, signature)
                try object._withUnsafeGuaranteedRef { try body($0, a, b, c) }
                return 0
            })
    }

    /// The object of a typed method call, once the stack holds exactly the
    /// object and `signature.maximum` arguments (a missing one is nil, one
    /// too many is an error). Unretained: argument 1 of the running call
    /// keeps it alive.
    @inlinable @inline(__always)
    static func typedSelf(
        _ pointer: UnsafeMutableRawPointer?, _ tag: UnsafeRawPointer, _ stack: LuaStack, _ signature: LuaSignature,
        _ name: String
    ) throws(LuaError) -> Unmanaged<Root> {
        guard let pointer else { return try typedSelfSlowly(tag, stack, signature, name) }
        try signature.fitArguments(stack)
        return Unmanaged<Root>.fromOpaque(pointer)
    }

    /// ``typedSelf(_:_:_:_:_:)`` when argument 1 is not an object of the
    /// exposed type itself: an object of an exposed subclass, or an error.
    @usableFromInline @inline(never)
    static func typedSelfSlowly(
        _ tag: UnsafeRawPointer, _ stack: LuaStack, _ signature: LuaSignature, _ name: String
    ) throws(LuaError) -> Unmanaged<Root> {
        guard let other = stack.exposedObject(at: 1, as: Root.self) else {
            throw LuaExposedMember.selfError(stack, tag: tag, signature: signature, method: name)
        }
        try signature.fitArguments(stack)
        return Unmanaged.passUnretained(other)
    }

    /// Argument `n` (1-based, after the object) as `T`, or an error naming it.
    @inlinable @inline(__always)
    static func argument<T: LuaReadable>(_ n: Int32, _ stack: LuaStack, _ signature: LuaSignature) throws(LuaError) -> T {
        do {
            return try T.read(from: stack, at: n &+ 1)
        } catch {
            throw signature.badArgument(Int(n), error)
        }
    }
}
