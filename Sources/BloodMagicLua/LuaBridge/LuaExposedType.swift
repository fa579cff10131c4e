import CLua
import CLuaHost

/// Describes how a Swift class appears in Lua: its name, constructor,
/// properties, methods and the protocols it conforms to.
///
/// ```swift
/// let exposed = LuaExposedType(RequestManager.self)          // Lua name "RequestManager"
///     .constructor(arguments: ["baseURL"]) { args in
///         RequestManager(baseURL: try args.get(1))           // new("…") or new { baseURL = "…" }
///     }
///     .property("baseURL", \.baseURL)                        // KeyPath: read-only
///     .property("timeout", \.timeout)                        // ReferenceWritableKeyPath: read-write
///     .method("fetch", arguments: ["path"]) { manager, args in
///         try manager.fetch(args.get(1, as: String.self))   // a LuaPushable result, or Void
///     }
///     .conforms(to: "RequestClient")
/// state.expose(exposed)   // the type, and a global table RequestManager with .new and the methods
/// ```
///
/// Objects cross with identity: the same Swift object is always the same
/// userdata in a state, and comes back to Swift as the same object.
public struct LuaExposedType<Root: AnyObject> {
    /// The name Lua sees.
    public let name: String
    /// The protocols the type conforms to, by name.
    public private(set) var protocols: [String] = []
    @usableFromInline var members: [LuaExposedMember] = []
    var constructor: LuaExposedConstructor?
    var describe: ((AnyObject) -> String)?

    /// Describes `type` under `name` (default: the unqualified type name).
    public init(_ type: Root.Type = Root.self, name: String? = nil) {
        self.name = name ?? Self.unqualifiedName(of: Root.self)
    }

    /// `Module.Outer.Inner<T>` -> `Inner<T>`.
    static func unqualifiedName(of type: Any.Type) -> String {
        let full = String(describing: type)
        let generic = full.firstIndex(of: "<") ?? full.endIndex
        if let dot = full[..<generic].lastIndex(of: ".") {
            return String(full[full.index(after: dot)...])
        }
        return full
    }

    // MARK: - Constructors

    /// `Name.new(...)`: builds an object from positional arguments, or from
    /// one table of named arguments (`Name.new { baseURL = "…" }`), which
    /// ``LuaArguments/get(_:_:as:)`` reads by the declared names.
    ///
    /// - Parameter arguments: the argument names, a trailing `?` marking an
    ///   optional one; when given, a call with the wrong count is an error
    ///   (`Name.new: expected 1 argument, got 3`), and so is an unknown name
    ///   in a table of named arguments. Nil: any count, named lookups need
    ///   the name passed to `get`.
    public func constructor(arguments: [String]? = nil, _ body: @escaping (LuaArguments) throws -> Root) -> Self {
        var copy = self
        copy.constructor = LuaExposedConstructor(names: arguments, acceptsNamedTable: true) { try body($0) }
        return copy
    }

    /// `Name.new { … }`: decodes the single table argument as `Config` (see
    /// ``LuaDecoder``) and builds the object from it. Decoding errors name
    /// the field: `Name.new: servers[2].port: expected integer, got string`.
    public func constructor<Config: Decodable>(decoding config: Config.Type, _ body: @escaping (Config) throws -> Root) -> Self {
        var copy = self
        copy.constructor = LuaExposedConstructor(
            names: ["config"], acceptsNamedTable: false, decodes: String(describing: Config.self)
        ) { args in
            guard args.count == 1 else {
                throw LuaError(.conversion, "\(args.function): expected 1 argument (a table), got \(args.count)")
            }
            let value: Config
            do throws(LuaError) {
                value = try args.stack.decode(Config.self, at: args.stackIndex(of: 1))
            } catch {
                throw LuaError(.conversion, "\(args.function): \(error.message)")
            }
            return try body(value)
        }
        return copy
    }

    // MARK: - Properties

    /// A read-only property read through a key path held in a variable.
    ///
    /// A key path to a stored property of a final class (or a `final`
    /// property) is read directly at the property's offset; any other goes
    /// through Swift's runtime key-path projection, which costs several times
    /// a closure call. A key-path *literal* of a `let` or get-only property
    /// (`.property("name", \.name)`) does not come here: it picks the
    /// overload that takes a function, and the compiler turns the literal
    /// into a direct read.
    @inlinable @_disfavoredOverload
    public func property<Value: LuaPushable>(_ name: String, _ keyPath: KeyPath<Root, Value>) -> Self {
        if let offset = StoredPropertyOffset.of(keyPath) {
            return adding(
                LuaExposedMember(
                    property: name, of: self.name, type: Value.self, read: Self.storedRead(Value.self, at: offset), write: nil,
                    stored: Self.storedKind(Value.self).map { ($0, offset) }))
        }
        return property(name, get: { $0[keyPath: keyPath] })
    }

    /// A read-only property read by a function: `.property("name", \.name)`
    /// for a `let` or get-only property (the key-path literal is compiled to a
    /// direct read, as fast as a closure), or `.property("name") { $0.name }`.
    @inlinable
    public func property<Value: LuaPushable>(_ name: String, _ get: @escaping (Root) throws -> Value) -> Self {
        property(name, get: get)
    }

    /// A read-write property through a writable key path.
    ///
    /// When the key path names a stored property of a final class (or a
    /// `final` property) without observers, a read loads it directly at its
    /// offset; an `Int`, `Double` or `Bool` is read by the C `__index`
    /// itself, without a call into Swift, the fastest property read there
    /// is. Otherwise (a non-final class's property, which a subclass may
    /// override; a computed or observed property; a
    /// path of several components) reads go through Swift's runtime key-path
    /// projection, which costs several times a closure call. Writes always
    /// go through the key path, so observers and exclusivity checks run. A
    /// direct read makes no dynamic exclusivity check of its own (as a read
    /// of a `let` makes none): Lua reading the property while Swift holds
    /// an `inout` access to it gets its current value rather than a trap.
    @inlinable
    public func property<Value: LuaConvertible>(_ name: String, _ keyPath: ReferenceWritableKeyPath<Root, Value>) -> Self {
        let offset = StoredPropertyOffset.of(keyPath)
        return adding(
            LuaExposedMember(
                property: name, of: self.name, type: Value.self,
                read: offset.map { Self.storedRead(Value.self, at: $0) } ?? { pointer, stack in
                    stack.pushReserved(Unmanaged<Root>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0[keyPath: keyPath] })
                    return 1
                },
                write: Self.write(Value.self, "\(self.name).\(name)") { $0[keyPath: keyPath] = $1 },
                stored: offset.flatMap { offset in Self.storedKind(Value.self).map { ($0, offset) } }))
    }

    /// A property read through `get`: pushes what it returns for the object.
    @inlinable
    static func read<Value: LuaPushable>(
        _ get: @escaping (Root) throws -> Value
    ) -> (UnsafeMutableRawPointer, LuaStack) throws -> Int32 {
        { pointer, stack in
            stack.pushReserved(try Unmanaged<Root>.fromOpaque(pointer)._withUnsafeGuaranteedRef(get))
            return 1
        }
    }

    /// A property write: reads the value at index 3 as `Value` (an error
    /// names `function`) and hands it to `set` with the object.
    @inlinable
    static func write<Value: LuaReadable>(
        _ type: Value.Type, _ function: String, _ set: @escaping (Root, Value) throws -> Void
    ) -> (UnsafeMutableRawPointer, LuaStack) throws -> Void {
        { pointer, stack in
            let value: Value
            do throws(LuaError) {
                value = try Value.read(from: stack, at: 3)
            } catch {
                throw LuaError(.conversion, "\(function): bad value (\(error.message))")
            }
            try Unmanaged<Root>.fromOpaque(pointer)._withUnsafeGuaranteedRef { try set($0, value) }
        }
    }

    /// The C kind (bm_exposed.h) for a value `__index` may read in C at a stored
    /// property's offset (a 64-bit integer, a `Double`, a `Bool`), or nil.
    @inlinable
    static func storedKind<Value>(_ type: Value.Type) -> Int32? {
        if Value.self == Int64.self || (Value.self == Int.self && MemoryLayout<Int>.size == 8) {
            return Int32(BM_STORED_INT64)
        }
        if Value.self == Double.self { return Int32(BM_STORED_DOUBLE) }
        if Value.self == Bool.self { return Int32(BM_STORED_BOOL) }
        return nil
    }

    /// A property read that loads the value at `offset` in the object: for
    /// a key path that ``StoredPropertyOffset`` resolved. The object is
    /// alive for the read (its userdata is argument 1 of the running call).
    @inlinable
    static func storedRead<Value: LuaPushable>(
        _ type: Value.Type, at offset: Int
    ) -> (UnsafeMutableRawPointer, LuaStack) throws -> Int32 {
        { pointer, stack in
            stack.pushReserved(pointer.advanced(by: offset).assumingMemoryBound(to: Value.self).pointee)
            return 1
        }
    }

    /// A read-only property computed by a closure.
    @inlinable
    public func property<Value: LuaPushable>(_ name: String, get: @escaping (Root) throws -> Value) -> Self {
        adding(
            LuaExposedMember(
                property: name, of: self.name, type: Value.self, read: Self.read(get), write: nil))
    }

    /// A read-write property through closures.
    @inlinable
    public func property<Value: LuaConvertible>(
        _ name: String, get: @escaping (Root) throws -> Value, set: @escaping (Root, Value) throws -> Void
    ) -> Self {
        adding(
            LuaExposedMember(
                property: name, of: self.name, type: Value.self, read: Self.read(get),
                write: Self.write(Value.self, "\(self.name).\(name)", set)))
    }

    // MARK: - Methods

    /// A method returning a value: `obj:name(...)`.
    ///
    /// - Parameter arguments: the argument names (a trailing `?` marks an
    ///   optional one), checked for count before `body` runs and used in
    ///   messages; nil accepts any count.
    @inlinable
    public func method<Result: LuaPushable>(
        _ name: String, arguments: [String]? = nil, _ body: @escaping (Root, LuaArguments) throws -> Result
    ) -> Self {
        let signature = LuaSignature(function: "\(self.name).\(name)", declared: arguments)
        return adding(
            LuaExposedMember(method: name, signature: signature, result: .value(Result.self)) { pointer, tag, stack in
                try Self.dispatch(pointer, tag, stack, signature, name) { object, args in
                    args.stack.push(try body(object, args))
                    return 1
                }
            })
    }

    /// A method returning nothing: `obj:name(...)`.
    @inlinable
    public func method(
        _ name: String, arguments: [String]? = nil, _ body: @escaping (Root, LuaArguments) throws -> Void
    ) -> Self {
        let signature = LuaSignature(function: "\(self.name).\(name)", declared: arguments)
        return adding(
            LuaExposedMember(method: name, signature: signature, result: .nothing) { pointer, tag, stack in
                try Self.dispatch(pointer, tag, stack, signature, name) { object, args in
                    try body(object, args)
                    return 0
                }
            })
    }

    /// A method that pushes its own results on `args.stack` and returns
    /// how many, for multiple results or values built by hand.
    public func method(
        _ name: String, arguments: [String]? = nil, pushing body: @escaping (Root, LuaArguments) throws -> Int32
    ) -> Self {
        let signature = LuaSignature(function: "\(self.name).\(name)", declared: arguments)
        return adding(
            LuaExposedMember(method: name, signature: signature) { pointer, tag, stack in
                try Self.dispatch(pointer, tag, stack, signature, name, body)
            })
    }

    /// The common part of every method call: resolve `self`, check the
    /// argument count, run `call`. Always inlined into the closure built for
    /// each method, so a call goes through one Swift closure, then the body.
    @inlinable @inline(__always)
    static func dispatch(
        _ pointer: UnsafeMutableRawPointer?, _ tag: UnsafeRawPointer, _ stack: LuaStack, _ signature: LuaSignature,
        _ name: String,
        _ call: (Root, LuaArguments) throws -> Int32
    ) throws -> Int32 {
        let args = LuaArguments(stack: stack, signature: signature, base: 1, allowsNamed: false)
        if let pointer {
            try signature.check(count: args.count)
            // No retain: the object's userdata is argument 1 of this running
            // call, so Lua keeps it (and its strong reference) alive until the
            // call returns. LuaArguments.stack says not to remove the call's
            // own slots.
            return try Unmanaged<Root>.fromOpaque(pointer)._withUnsafeGuaranteedRef { object in
                try call(object, args)
            }
        }
        guard let other = stack.exposedObject(at: 1, as: Root.self) else {
            throw LuaExposedMember.selfError(stack, tag: tag, signature: signature, method: name)
        }
        try signature.check(count: args.count)
        return try call(other, args)  // an object of an exposed subclass
    }

    // MARK: - Identity

    /// Declares protocols the type conforms to, by name, for registry matching.
    public func conforms(to protocolNames: String...) -> Self {
        var copy = self
        copy.protocols += protocolNames.filter { !copy.protocols.contains($0) }
        return copy
    }

    /// What `tostring(obj)` shows (default: `Name: 0x…`).
    public func describe(_ body: @escaping (Root) -> String) -> Self {
        var copy = self
        copy.describe = { body($0 as! Root) }
        return copy
    }

    @usableFromInline
    func adding(_ member: LuaExposedMember) -> Self {
        var copy = self
        copy.members.removeAll { $0.name == member.name }
        copy.members.append(member)
        return copy
    }

    /// The per-state registration.
    func makeInfo() -> LuaExposedTypeInfo {
        LuaExposedTypeInfo(
            name: name, swiftType: Root.self, protocols: protocols, members: members,
            constructor: constructor, describe: describe, accepts: { $0 is Root })
    }
}
