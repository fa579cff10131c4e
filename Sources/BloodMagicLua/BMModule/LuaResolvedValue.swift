/// What a Lua initializer returns to the registry: the Lua value, and what is
/// needed to turn it into the type of a Swift property — exposed userdata
/// becomes its object, a table a `Decodable` value, a scalar its Swift type.
final class LuaResolvedValue: ConvertibleSpellValue, Sendable, CustomStringConvertible {
    /// The Lua value.
    let value: LuaValue
    /// The state the value lives in.
    let state: LuaState
    /// Where the initializer was registered (`file:line`), for messages.
    let source: String
    /// The type name the initializer was registered for.
    let typeName: String
    /// What made the value, for messages: "the Lua initializer" or "the Lua resolver".
    let producer: String

    init(value: LuaValue, state: LuaState, source: String, typeName: String, producer: String = "the Lua initializer") {
        self.value = value
        self.state = state
        self.source = source
        self.typeName = typeName
        self.producer = producer
    }

    var description: String { value.description }

    /// Whether the initializer returned nil.
    var isNilValue: Bool { value.isNil }

    func converted<T>(to type: T.Type) throws -> T {
        guard let converted = try convert(to: type) as? T else {
            throw mismatch(expected: "\(T.self)", detail: nil)
        }
        return converted
    }

    /// Converts to `type`, returning `Any` (so Optional can be handled at run time).
    private func convert(to type: Any.Type) throws -> Any {
        if type == LuaValue.self { return value }
        if let optional = type as? any OptionalProtocol.Type {
            if value.isNil { return optional.nilValue }
            let wrapped = try convert(to: optional.wrappedType)
            guard let some = optional.wrapping(wrapped) else { throw mismatch(expected: "\(type)", detail: nil) }
            return some
        }
        if value.isNil {
            throw mismatch(expected: "\(type)", detail: nil)
        }
        // Scalars convert without entering the state.
        switch value {
        case .integer(let number) where type == Int.self: return number
        case .integer(let number) where type == Double.self: return Double(number)
        case .number(let number) where type == Double.self: return number
        case .string(let text) where type == String.self: return text
        case .boolean(let flag) where type == Bool.self: return flag
        default: break
        }
        return try state.withStack { (lua) throws -> Any in
            lua.push(value)
            defer { lua.pop() }
            if case .userdata = value {
                if let object = lua.exposedObject(at: -1, as: AnyObject.self) {
                    if let cast = castObject(object, to: type) { return cast }
                    throw mismatch(expected: "\(type)", detail: "\(Swift.type(of: object))")
                }
            }
            if let readable = type as? any LuaReadable.Type {
                do {
                    return try readable.read(from: lua, at: -1)
                } catch {
                    if !(type is any Decodable.Type) { throw mismatch(expected: "\(type)", detail: (error as? LuaError)?.message ?? "\(error)") }
                }
            }
            if let decodable = type as? any Decodable.Type {
                do {
                    return try lua.decode(decodable, at: -1)
                } catch {
                    throw mismatch(expected: "\(type)", detail: (error as? LuaError)?.message ?? "\(error)")
                }
            }
            throw mismatch(
                expected: "\(type)",
                detail: "\(type) is neither an exposed class, LuaReadable nor Decodable")
        }
    }

    private func castObject(_ object: AnyObject, to type: Any.Type) -> Any? {
        func open<T>(_: T.Type) -> Any? { object as? T }
        return _openExistential(type, do: open)
    }

    /// The value is not of the property's type: `SpellError.wrongValueType`
    /// with what the value is ("a table (title: expected string, got
    /// number)") and where the initializer or resolver was registered; the
    /// spell names the property, its container and the type (see
    /// ``ConvertibleSpellValue``), and makes it `wrongResolvedType` for a
    /// resolver.
    private func mismatch(expected: String, detail: String?) -> SpellError {
        var got = value.isNil ? "nil" : LuaResolvedValue.luaTypeName(value)
        // A conversion's "expected T, got string" says no more than this.
        if let detail, !detail.hasPrefix("expected ") { got += " (\(detail))" }
        return .wrongValueType(property: "", container: "", expected: expected, actual: got, source: source)
    }

    static func luaTypeName(_ value: LuaValue) -> String {
        switch value {
        case .nil: "nil"
        case .boolean: "a boolean"
        case .integer: "an integer"
        case .number: "a number"
        case .string, .bytes: "a string"
        case .table: "a table"
        case .function: "a function"
        case .userdata: "a userdata"
        case .lightUserdata: "a light userdata"
        case .thread: "a thread"
        }
    }
}

