import CLua

/// A Swift value that can be pushed onto a Lua stack.
public protocol LuaPushable {
    /// Pushes this value as one Lua value.
    func push(onto stack: LuaStack)
}

/// A Swift value that can be read from a Lua stack.
public protocol LuaReadable {
    /// Reads the value at `index`, or throws a ``LuaError`` of kind
    /// `.conversion` that says what was expected and what was found.
    static func read(from stack: LuaStack, at index: Int32) throws(LuaError) -> Self
}

/// A value that converts both ways.
public typealias LuaConvertible = LuaPushable & LuaReadable

/// Raw bytes, for Lua strings that need not be UTF-8. Every byte survives,
/// embedded NULs included.
public struct LuaBytes: Hashable, Sendable, LuaConvertible {
    /// The bytes.
    public var bytes: [UInt8]
    /// Wraps `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public func push(onto stack: LuaStack) {
        stack.ensureSpace(1)
        bytes.withUnsafeBufferPointer { buffer in
            _ = lua_pushlstring(stack.L, UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self), buffer.count)
        }
    }

    public static func read(from stack: LuaStack, at index: Int32) throws(LuaError) -> LuaBytes {
        guard lua_type(stack.L, index) == LUA_TSTRING else { throw stack.mismatch("string", at: index) }
        var length = 0
        let pointer = lua_tolstring(stack.L, index, &length)!
        return LuaBytes(Array(UnsafeRawBufferPointer(start: pointer, count: length)))
    }
}

extension LuaStack {
    /// Pushes any pushable value.
    @inlinable
    public func push(_ value: some LuaPushable) { value.push(onto: self) }

    /// Pushes nil.
    public func pushNil() {
        ensureSpace(1)
        lua_pushnil(L)
    }

    /// Reads the value at `index` as `T`.
    @inlinable
    public func value<T: LuaReadable>(at index: Int32, as type: T.Type = T.self) throws(LuaError) -> T {
        try T.read(from: self, at: index)
    }

    /// Reads argument `n` of a Swift callback as `T`. A mismatch reads like
    /// Lua's own: `bad argument #2 to 'f' (integer expected, got string)`.
    @inlinable
    public func argument<T: LuaReadable>(_ n: Int32, of function: String, as type: T.Type = T.self) throws(LuaError) -> T {
        do {
            return try T.read(from: self, at: n)
        } catch {
            throw badArgument(n, of: function, error)
        }
    }

    /// The error of ``argument(_:of:as:)``, out of line.
    @usableFromInline
    func badArgument(_ n: Int32, of function: String, _ error: LuaError) -> LuaError {
        LuaError(.conversion, "bad argument #\(n) to '\(function)' (\(error.message))")
    }

    /// The string at `index` without conversion, byte-exact, or nil when the
    /// value is not a string or not valid UTF-8.
    public func rawString(at index: Int32) -> String? {
        guard lua_type(L, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let pointer = lua_tolstring(L, index, &length) else { return nil }
        return Self.validatedString(UnsafeRawBufferPointer(start: pointer, count: length))
    }

    /// `bytes` as a String when they are valid UTF-8, else nil. ASCII (most
    /// strings a script passes) is checked with a plain loop and copied
    /// with no further validation; anything else goes through
    /// `String(validating:as:)`, whose unspecialized validation looks up
    /// generic metadata on every call.
    static func validatedString(_ bytes: UnsafeRawBufferPointer) -> String? {
        var isASCII = true
        for byte in bytes where byte >= 0x80 {
            isASCII = false
            break
        }
        if isASCII { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self)
    }

    /// A conversion error: `expected <what>, got <type>`.
    public func mismatch(_ expected: String, at index: Int32) -> LuaError {
        LuaError(.conversion, "expected \(expected), got \(typeName(at: index))")
    }
}

extension Bool: LuaConvertible {
    @inlinable
    public func push(onto stack: LuaStack) {
        stack.ensureSpace(1)
        lua_pushboolean(stack.L, self ? 1 : 0)
    }

    @inlinable
    public static func read(from stack: LuaStack, at index: Int32) throws(LuaError) -> Bool {
        guard lua_type(stack.L, index) == LUA_TBOOLEAN else { throw stack.mismatch("boolean", at: index) }
        return lua_toboolean(stack.L, index) != 0
    }
}

extension LuaStack {
    /// Reads an integer of type `T`: a Lua integer, or a float with an exact
    /// integral value (`3` or `3.0`, not `3.5`), within `T`'s range. The one
    /// integer reader, for the conversions and for ``LuaDecoder``.
    ///
    /// Inlinable, with everything but the common case out of line: an
    /// argument read in an exposed method is then two Lua API calls and no
    /// Swift call.
    @inlinable
    func readInteger<T: FixedWidthInteger>(_ type: T.Type = T.self, at index: Int32) throws(LuaError) -> T {
        if lua_type(L, index) == LUA_TNUMBER {
            var isInteger: Int32 = 0
            let value = lua_tointegerx(L, index, &isInteger)
            if isInteger != 0, let exact = T(exactly: value) { return exact }
        }
        return try readIntegerSlowly(T.self, at: index)
    }

    /// The rest of ``readInteger(_:at:)``: a float beyond `lua_Integer` that
    /// still fits `T` (a `UInt64` above `Int64.max`, which is how Lua holds
    /// it), else why the value is not a `T`.
    @usableFromInline
    func readIntegerSlowly<T: FixedWidthInteger>(_ type: T.Type, at index: Int32) throws(LuaError) -> T {
        guard lua_type(L, index) == LUA_TNUMBER else { throw mismatch("integer", at: index) }
        if lua_isinteger(L, index) != 0 {
            throw Self.integerOutOfRange(T.self, String(lua_tointegerx(L, index, nil)))
        }
        let value = lua_tonumberx(L, index, nil)
        guard value.isFinite, value.rounded() == value else {
            throw LuaError(.conversion, "expected integer, got number \(LuaValue.format(value))")
        }
        guard let exact = T(exactly: value) else {
            throw Self.integerOutOfRange(T.self, Int64(exactly: value).map(String.init) ?? LuaValue.format(value))
        }
        return exact
    }

    /// `integer <value> is out of range for <T> (<min>...<max>)`.
    static func integerOutOfRange<T: FixedWidthInteger>(_ type: T.Type, _ value: String) -> LuaError {
        LuaError(.conversion, "integer \(value) is out of range for \(T.self) (\(T.min)...\(T.max))")
    }
}

/// Integers convert exactly; reading one that does not fit the Swift type is
/// a conversion error, never a silent wrap.
extension LuaPushable where Self: BinaryInteger {
    @inlinable
    public func push(onto stack: LuaStack) {
        stack.ensureSpace(1)
        if let exact = lua_Integer(exactly: self) {
            lua_pushinteger(stack.L, exact)
        } else {
            // Only UInt64 values above Int64.max get here: a float, as Lua
            // does. readInteger reads it back while it is exact.
            lua_pushnumber(stack.L, lua_Number(self))
        }
    }
}

extension LuaReadable where Self: FixedWidthInteger {
    @inlinable
    public static func read(from stack: LuaStack, at index: Int32) throws(LuaError) -> Self {
        try stack.readInteger(Self.self, at: index)
    }
}

extension Int: LuaConvertible {}
extension Int64: LuaConvertible {}
extension Int32: LuaConvertible {}
extension Int16: LuaConvertible {}
extension Int8: LuaConvertible {}
extension UInt: LuaConvertible {}
extension UInt64: LuaConvertible {}
extension UInt32: LuaConvertible {}
extension UInt16: LuaConvertible {}
extension UInt8: LuaConvertible {}

extension Double: LuaConvertible {
    @inlinable
    public func push(onto stack: LuaStack) {
        stack.ensureSpace(1)
        lua_pushnumber(stack.L, self)
    }

    @inlinable
    public static func read(from stack: LuaStack, at index: Int32) throws(LuaError) -> Double {
        guard lua_type(stack.L, index) == LUA_TNUMBER else { throw stack.mismatch("number", at: index) }
        return lua_tonumberx(stack.L, index, nil)
    }
}

extension Float: LuaConvertible {
    public func push(onto stack: LuaStack) { Double(self).push(onto: stack) }

    public static func read(from stack: LuaStack, at index: Int32) throws(LuaError) -> Float {
        Float(try Double.read(from: stack, at: index))
    }
}

extension String: LuaConvertible {
    public func push(onto stack: LuaStack) {
        stack.ensureSpace(1)
        var copy = self
        copy.withUTF8 { buffer in
            _ = lua_pushlstring(stack.L, UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self), buffer.count)
        }
    }

    public static func read(from stack: LuaStack, at index: Int32) throws(LuaError) -> String {
        guard lua_type(stack.L, index) == LUA_TSTRING else { throw stack.mismatch("string", at: index) }
        guard let string = stack.rawString(at: index) else {
            throw LuaError(.conversion, "expected UTF-8 string, got bytes that are not valid UTF-8 (read them as LuaBytes, or decode them as Data)")
        }
        return string
    }
}

extension Optional: LuaPushable where Wrapped: LuaPushable {
    public func push(onto stack: LuaStack) {
        if let value = self { value.push(onto: stack) } else { stack.pushNil() }
    }
}

extension Optional: LuaReadable where Wrapped: LuaReadable {
    public static func read(from stack: LuaStack, at index: Int32) throws(LuaError) -> Wrapped? {
        if lua_type(stack.L, index) <= LUA_TNIL { return nil }
        return try Wrapped.read(from: stack, at: index)
    }
}

extension LuaStack {
    /// Pushes a new sequence table `{ [1] = …, [n] = … }`, sized for
    /// `elements`; `pushElement` pushes one element as exactly one value.
    /// Raw writes: no metamethods run.
    func pushSequence<Elements: Collection>(_ elements: Elements, _ pushElement: (Elements.Element) -> Void) {
        ensureSpace(2)  // the table, then each element above it
        pushSequence(reserved: elements, pushElement)
    }

    /// ``pushSequence(_:_:)`` where room for the table and one element was
    /// made already (the encoder's spare slots).
    @inline(__always)
    func pushSequence<Elements: Collection>(reserved elements: Elements, _ pushElement: (Elements.Element) -> Void) {
        lua_createtable(L, Int32(clamping: elements.count), 0)
        var position: lua_Integer = 0
        for element in elements {
            pushElement(element)
            position += 1
            lua_rawseti(L, -2, position)
        }
    }

    /// Pushes a new table with one entry per key of `entries`, sized for
    /// them; `pushKey` and `pushValue` each push exactly one value (the key
    /// never nil or NaN). Raw writes: no metamethods run.
    func pushTable<Key, Value>(_ entries: [Key: Value], key pushKey: (Key) -> Void, value pushValue: (Value) -> Void) {
        ensureSpace(3)  // the table, then each key and value above it
        lua_createtable(L, 0, Int32(clamping: entries.count))
        for (key, value) in entries {
            pushKey(key)
            pushValue(value)
            lua_rawset(L, -3)
        }
    }

    /// Pushes a new table with string keys; `pushValue` pushes one value as
    /// exactly one Lua value. Raw writes: no metamethods run.
    func pushStringKeyed<Value>(_ entries: [String: Value], _ pushValue: (Value) -> Void) {
        pushTable(entries, key: { push($0) }, value: pushValue)
    }

    /// ``pushSequence(_:_:)`` for values nested to any depth (preference
    /// values, encoded values): checks the stack at every level and throws a
    /// `.stackOverflow` ``LuaError`` when it cannot grow, leaving the stack
    /// as it was. `pushElement` pushes exactly one value or throws.
    func pushCheckedSequence<Elements: Collection>(
        _ elements: Elements, _ pushElement: (Elements.Element) throws(LuaError) -> Void
    ) throws(LuaError) {
        try requireSpace(2)  // the table, then each element above it
        let top = lua_gettop(L)
        lua_createtable(L, Int32(clamping: elements.count), 0)
        var position: lua_Integer = 0
        do throws(LuaError) {
            for element in elements {
                try pushElement(element)
                position += 1
                lua_rawseti(L, -2, position)
            }
        } catch {
            lua_settop(L, top)
            throw error
        }
    }

    /// ``pushTable(_:key:value:)`` for values nested to any depth; see
    /// ``pushCheckedSequence(_:_:)``.
    func pushCheckedTable<Key, Value>(
        _ entries: [Key: Value], key pushKey: (Key) -> Void, value pushValue: (Value) throws(LuaError) -> Void
    ) throws(LuaError) {
        try requireSpace(3)  // the table, then each key and value above it
        let top = lua_gettop(L)
        lua_createtable(L, 0, Int32(clamping: entries.count))
        do throws(LuaError) {
            for (key, value) in entries {
                pushKey(key)
                try pushValue(value)
                lua_rawset(L, -3)
            }
        } catch {
            lua_settop(L, top)
            throw error
        }
    }
}

extension Array: LuaPushable where Element: LuaPushable {
    /// Pushes a sequence table `{ [1] = …, [n] = … }`.
    public func push(onto stack: LuaStack) {
        stack.pushSequence(self) { $0.push(onto: stack) }
    }
}

extension Array: LuaReadable where Element: LuaReadable {
    /// Reads a sequence table's elements 1...#t (raw length, no metamethods).
    public static func read(from stack: LuaStack, at index: Int32) throws(LuaError) -> [Element] {
        guard lua_type(stack.L, index) == LUA_TTABLE else { throw stack.mismatch("table", at: index) }
        let table = stack.absolute(index)
        let count = Int(clamping: lua_rawlen(stack.L, table))
        var result: [Element] = []
        result.reserveCapacity(count)
        try stack.requireSpace(2)
        for position in 0..<count {
            lua_rawgeti(stack.L, table, lua_Integer(position + 1))
            defer { lua_settop(stack.L, -2) }
            do {
                result.append(try Element.read(from: stack, at: -1))
            } catch {
                throw LuaError(.conversion, "[\(position + 1)]: \(error.message)")
            }
        }
        return result
    }
}

extension Dictionary: LuaPushable where Key == String, Value: LuaPushable {
    /// Pushes a table with string keys.
    public func push(onto stack: LuaStack) {
        stack.pushStringKeyed(self) { $0.push(onto: stack) }
    }
}

extension Dictionary: LuaReadable where Key == String, Value: LuaReadable {
    /// Reads a table whose keys are all strings (raw iteration, no metamethods).
    public static func read(from stack: LuaStack, at index: Int32) throws(LuaError) -> [String: Value] {
        guard lua_type(stack.L, index) == LUA_TTABLE else { throw stack.mismatch("table", at: index) }
        let table = stack.absolute(index)
        var result: [String: Value] = [:]
        try stack.requireSpace(3)
        lua_pushnil(stack.L)
        while lua_next(stack.L, table) != 0 {
            // key at -2, value at -1; never convert the key in place.
            guard lua_type(stack.L, -2) == LUA_TSTRING, let key = stack.rawString(at: -2) else {
                let keyType = stack.typeName(at: -2)
                lua_settop(stack.L, -3)
                throw LuaError(.conversion, "expected string keys, got a \(keyType) key")
            }
            do {
                result[key] = try Value.read(from: stack, at: -1)
            } catch {
                lua_settop(stack.L, -3)
                throw LuaError(.conversion, "\(key): \(error.message)")
            }
            lua_settop(stack.L, -2)
        }
        return result
    }
}
