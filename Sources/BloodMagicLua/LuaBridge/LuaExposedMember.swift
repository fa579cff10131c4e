import CLua
import CLuaHost

/// One method or property of an exposed type, with its Swift closures
/// already specialised to the Swift type. Lua reaches it unretained (a light
/// userdata in the members table); the state's ``LuaExposedTypeRegistry``
/// keeps it alive.
@usableFromInline
final class LuaExposedMember {
    /// The name Lua uses.
    let name: String
    /// `Type.name`, for messages.
    var function: String { signature.function }
    /// The name and declared arguments (for a property, just the name).
    let signature: LuaSignature
    /// Whether this is a property (else a method).
    let isProperty: Bool
    /// A method: the object (nil when argument 1 is not an object of the
    /// exposed type itself), the type's tag and the stack; returns the
    /// number of results.
    let invoke: (UnsafeMutableRawPointer?, UnsafeRawPointer, LuaStack) throws -> Int32
    /// A property read: pushes the value, returns 1.
    let read: (UnsafeMutableRawPointer, LuaStack) throws -> Int32
    /// A property write, value at index 3; nil for a read-only property.
    let write: ((UnsafeMutableRawPointer, LuaStack) throws -> Void)?
    /// A property's type, or what a method returns (for editor annotations).
    let result: LuaMemberResult
    /// The Swift types a method's typed parameters are read as (for editor
    /// annotations); nil for a method that reads its own arguments.
    let argumentTypes: [Any.Type]?
    /// For a property stored in the object as a plain value (`BM_STORED_*`
    /// in bm_exposed.h), its kind and byte offset: `__index` then reads it in C.
    let storedKind: Int32
    let storedOffset: Int

    /// A method; `signature` is the one its `invoke` closure checks against.
    @usableFromInline
    init(
        method name: String, signature: LuaSignature, result: LuaMemberResult = .unknown,
        argumentTypes: [Any.Type]? = nil,
        invoke: @escaping (UnsafeMutableRawPointer?, UnsafeRawPointer, LuaStack) throws -> Int32
    ) {
        self.name = name
        self.signature = signature
        self.isProperty = false
        self.invoke = invoke
        self.read = { _, _ in 0 }
        self.write = nil
        self.result = result
        self.argumentTypes = argumentTypes
        self.storedKind = Int32(BM_STORED_NONE)
        self.storedOffset = 0
    }

    /// A property.
    @usableFromInline
    init(
        property name: String, of typeName: String, type: Any.Type? = nil,
        read: @escaping (UnsafeMutableRawPointer, LuaStack) throws -> Int32,
        write: ((UnsafeMutableRawPointer, LuaStack) throws -> Void)?,
        stored: (kind: Int32, offset: Int)? = nil
    ) {
        self.name = name
        self.signature = LuaSignature(function: "\(typeName).\(name)", declared: nil)
        self.isProperty = true
        self.invoke = { _, _, _ in 0 }
        self.read = read
        self.write = write
        self.result = type.map { .value($0) } ?? .unknown
        self.argumentTypes = nil
        self.storedKind = stored?.kind ?? Int32(BM_STORED_NONE)
        self.storedOffset = stored?.offset ?? 0
    }

    /// Why argument 1 of a call to `method` of the type `tag` is not a usable
    /// object: the type's own reason, and how to call a method.
    @usableFromInline
    static func selfError(_ stack: LuaStack, tag: UnsafeRawPointer, signature: LuaSignature, method: String) -> LuaError {
        let problem = LuaExposedTypeInfo.from(tag).selfProblem(stack, hint: "call it as obj:\(method)(...)")
        return LuaError(.conversion, "\(signature.function): \(problem)")
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ pointer: UnsafeMutableRawPointer) -> LuaExposedMember {
        Unmanaged<LuaExposedMember>.fromOpaque(pointer).takeUnretainedValue()
    }
}

/// The constructor of an exposed type, behind `Type.new`.
final class LuaExposedConstructor {
    /// Declared argument names (`?` suffix: optional), or nil for any count.
    let names: [String]?
    /// Whether one table argument may carry the arguments by name.
    let acceptsNamedTable: Bool
    /// The `Decodable` type one table argument decodes into, if that is how it reads.
    let decodes: String?
    /// The parameters' Swift types, one per name, for a typed constructor
    /// (nil when the body reads its arguments itself).
    let argumentTypes: [Any.Type]?
    let make: (LuaArguments) throws -> AnyObject

    init(
        names: [String]?, acceptsNamedTable: Bool, decodes: String? = nil, argumentTypes: [Any.Type]? = nil,
        make: @escaping (LuaArguments) throws -> AnyObject
    ) {
        self.names = names
        self.acceptsNamedTable = acceptsNamedTable
        self.decodes = decodes
        self.argumentTypes = argumentTypes
        self.make = make
    }
}

/// What a member gives Lua, for editor annotations: a property's type or a
/// method's result.
@usableFromInline
enum LuaMemberResult {
    /// Nothing (a method returning `Void`).
    case nothing
    /// One value of this Swift type.
    case value(Any.Type)
    /// Whatever the method pushes.
    case unknown
}
