import CLua

/// A Swift class as exposed in one Lua state: its Lua name, its Swift type,
/// the protocols it conforms to (by name), and its members.
///
/// Look it up with ``LuaStack/exposedType(named:)`` or
/// ``LuaStack/exposedType(for:)``; the `bm` module uses it to turn Lua values
/// into Swift property types and to match registry protocols.
public final class LuaExposedTypeInfo {
    /// The name Lua sees: the global class table, `__name`, messages.
    public let name: String
    /// The Swift class.
    public let swiftType: AnyObject.Type
    /// The protocols it conforms to, by name, in the order given.
    public let protocols: [String]
    /// The names of its methods.
    public var methodNames: [String] { members.values.filter { !$0.isProperty }.map(\.name).sorted() }
    /// The names of its properties.
    public var propertyNames: [String] { members.values.filter(\.isProperty).map(\.name).sorted() }
    /// Whether Lua can create objects with `Name.new(...)`.
    public var hasConstructor: Bool { constructor != nil }

    let members: [String: LuaExposedMember]
    let constructor: LuaExposedConstructor?
    let describe: ((AnyObject) -> String)?
    /// Whether an object is an instance of ``swiftType`` (or a subclass).
    let accepts: (AnyObject) -> Bool
    /// The metatable's registry slot in the state.
    var metatableSlot: Int32 = BM_LUA_NOREF
    /// The class table's registry slot (`Name`, with `new` and the methods).
    var classTableSlot: Int32 = BM_LUA_NOREF
    /// Whether scripts see the type as a global class table (types exposed
    /// on the fly, for senders of classes never exposed, are not).
    var isGlobal = false

    init(
        name: String, swiftType: AnyObject.Type, protocols: [String], members: [LuaExposedMember],
        constructor: LuaExposedConstructor?, describe: ((AnyObject) -> String)?, accepts: @escaping (AnyObject) -> Bool
    ) {
        self.name = name
        self.swiftType = swiftType
        self.protocols = protocols
        self.members = Dictionary(members.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        self.constructor = constructor
        self.describe = describe
        self.accepts = accepts
    }

    /// Whether the type conforms to the protocol called `protocolName`.
    public func conforms(to protocolName: String) -> Bool { protocols.contains(protocolName) }

    /// The tag stored in each object's block: this registration's address.
    var tag: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ tag: UnsafeRawPointer) -> LuaExposedTypeInfo {
        Unmanaged<LuaExposedTypeInfo>.fromOpaque(tag).takeUnretainedValue()
    }

    /// Why argument 1 is not a usable object of this type; `hint`, if any,
    /// follows a wrong value in parentheses.
    func selfProblem(_ stack: LuaStack, hint: String? = nil) -> String {
        if let block = stack.exposedBlock(at: 1), block.pointee.object == nil {
            return "the \(name) object was released"
        }
        return "expected a \(name) object as self, got \(stack.typeName(at: 1))" + (hint.map { " (\($0))" } ?? "")
    }
}
