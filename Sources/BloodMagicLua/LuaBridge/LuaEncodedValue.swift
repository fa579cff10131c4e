import CLua
import Foundation

/// A value on its way into Lua: the encoder builds a tree of these, then
/// pushes it in one go, so containers may be filled in any order (as
/// `Encoder` allows) without juggling stack slots.
final class LuaEncodedValue {
    /// A key of a Lua table built by the encoder.
    enum Key: Hashable {
        case string(String)
        case integer(Int)
    }

    enum Content {
        case `nil`
        case boolean(Bool)
        case integer(Int64)
        case number(Double)
        case string(String)
        case bytes([UInt8])
        case fields([Key: LuaEncodedValue])
        case elements([LuaEncodedValue])
    }

    /// Nil until something is encoded; a value that encodes nothing at all
    /// (an empty struct) becomes an empty table.
    var content: Content?

    init(_ content: Content? = nil) { self.content = content }

    /// Makes this a keyed table (keeping the fields already there).
    func makeFields() {
        if case .fields = content { return }
        content = .fields([:])
    }

    /// Makes this a sequence (keeping the elements already there).
    func makeElements() {
        if case .elements = content { return }
        content = .elements([])
    }

    /// Sets `key` to a new child value and returns it.
    func child(forKey key: Key) -> LuaEncodedValue {
        let child = LuaEncodedValue()
        guard case .fields(var fields) = content else { preconditionFailure("not a keyed container") }
        content = nil  // keep `fields` uniquely referenced while it changes
        fields[key] = child
        content = .fields(fields)
        return child
    }

    /// Appends a new element and returns it.
    func appendElement() -> LuaEncodedValue {
        let child = LuaEncodedValue()
        guard case .elements(var elements) = content else { preconditionFailure("not an unkeyed container") }
        content = nil
        elements.append(child)
        content = .elements(elements)
        return child
    }

    /// The number of elements, for an unkeyed container.
    var elementCount: Int {
        if case .elements(let elements) = content { return elements.count }
        return 0
    }

    /// Pushes the value as one Lua value (raw table writes only).
    func push(onto stack: LuaStack) {
        let L = stack.L
        stack.ensureSpace(3)
        switch content {
        case .none:
            lua_createtable(L, 0, 0)
        case .nil:
            lua_pushnil(L)
        case .boolean(let value):
            lua_pushboolean(L, value ? 1 : 0)
        case .integer(let value):
            lua_pushinteger(L, value)
        case .number(let value):
            lua_pushnumber(L, value)
        case .string(let value):
            stack.push(value)
        case .bytes(let value):
            stack.push(LuaBytes(value))
        case .fields(let fields):
            stack.pushTable(
                fields,
                key: { key in
                    switch key {
                    case .string(let name): stack.push(name)
                    case .integer(let integer): lua_pushinteger(L, lua_Integer(integer))
                    }
                },
                value: { $0.push(onto: stack) })
        case .elements(let elements):
            stack.pushSequence(elements) { $0.push(onto: stack) }
        }
    }
}
