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

    /// Pushes the value as one Lua value (raw table writes only). Each
    /// nested table checks the stack first: a stack too full for the value
    /// is a `.stackOverflow` ``LuaError``, and the stack is left as it was.
    func push(onto stack: LuaStack, depth: Int = 0) throws(LuaError) {
        let L = stack.L
        if depth > LuaNesting.maxDepth {
            throw LuaError(.conversion, "values nested more than \(LuaNesting.maxDepth) deep cannot cross into Lua")
        }
        switch content {
        case .none:
            try stack.requireSpace(1)
            lua_createtable(L, 0, 0)
        case .nil:
            stack.pushNil()
        case .boolean(let value):
            stack.push(value)
        case .integer(let value):
            try stack.requireSpace(1)
            lua_pushinteger(L, value)
        case .number(let value):
            stack.push(value)
        case .string(let value):
            stack.push(value)
        case .bytes(let value):
            stack.push(LuaBytes(value))
        case .fields(let fields):
            try stack.pushCheckedTable(
                fields,
                key: { key in
                    switch key {
                    case .string(let name): stack.push(name)
                    case .integer(let integer): lua_pushinteger(L, lua_Integer(integer))
                    }
                },
                value: { (value) throws(LuaError) in try value.push(onto: stack, depth: depth + 1) })
        case .elements(let elements):
            try stack.pushCheckedSequence(elements) { (value) throws(LuaError) in try value.push(onto: stack, depth: depth + 1) }
        }
    }
}
