import CLua

/// Lua strings as text for people: error messages, tracebacks, printed values.
///
/// Lua strings are bytes. Valid UTF-8 is shown as it is; each byte that is
/// not part of valid UTF-8 is shown escaped as Lua writes it (`\255`), so a
/// message like `error("\255 bad")` keeps every byte and its `file:line`
/// instead of being dropped or turned into replacement characters.
enum LuaDisplayText {
    /// `bytes` as text, with the bytes of invalid UTF-8 escaped (`\ddd`).
    static func escaping<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        // ASCII (file names, most messages) needs no validation pass:
        // `String(validating:)` is not specialized here and looks up generic
        // metadata each time.
        let ascii = bytes.withContiguousStorageIfAvailable { buffer -> String? in
            var high: UInt8 = 0
            for byte in buffer { high |= byte }
            return high < 0x80 ? String(decoding: buffer, as: UTF8.self) : nil
        }
        if let ascii, let text = ascii { return text }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var text = ""
        text.reserveCapacity(bytes.count + 16)
        forEachPart(of: Array(bytes), valid: { text += $0 }, invalid: { text += escape($0) })
        return text
    }

    /// `\ddd`, as Lua writes a byte; always three digits here, since every
    /// byte that is not part of valid UTF-8 is at least 0x80.
    static func escape(_ byte: UInt8) -> String {
        "\\" + String(byte)
    }

    /// Splits `bytes` into runs of valid UTF-8 (handed over as text) and the
    /// single bytes between them that are not valid UTF-8, in order.
    static func forEachPart(of bytes: [UInt8], valid: (String) -> Void, invalid: (UInt8) -> Void) {
        var start = 0
        var index = 0
        while index < bytes.count {
            let length = validSequenceLength(bytes, at: index)
            if length > 0 {
                index += length
                continue
            }
            if start < index { valid(String(decoding: bytes[start..<index], as: UTF8.self)) }
            invalid(bytes[index])
            index += 1
            start = index
        }
        if start < index { valid(String(decoding: bytes[start..<index], as: UTF8.self)) }
    }

    /// The length of the well-formed UTF-8 sequence at `index` (RFC 3629:
    /// no overlong forms, no surrogates, nothing above U+10FFFF), or 0.
    private static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.count && range.contains(bytes[index + offset])
        }
        switch lead {
        case 0x00...0x7F:
            return 1
        case 0xC2...0xDF:
            return continuation(1) ? 2 : 0
        case 0xE0:
            return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(1) && continuation(2) ? 3 : 0
        case 0xED:
            return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xF0:
            return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3:
            return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4:
            return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default:
            return 0
        }
    }
}

extension LuaStack {
    /// The string at `index` as text for people (see ``LuaDisplayText``):
    /// valid UTF-8 as it is, other bytes escaped (`\255`); nil when the
    /// value is not a string. Never runs metamethods and never fails.
    public func displayString(at index: Int32) -> String? {
        guard lua_type(L, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let pointer = lua_tolstring(L, index, &length) else { return nil }
        let buffer = UnsafeRawBufferPointer(start: pointer, count: length)
        return LuaDisplayText.escaping(buffer)
    }

    /// The bytes of the string at `index` (nil when it is not a string).
    func stringBytes(at index: Int32) -> [UInt8]? {
        guard lua_type(L, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let pointer = lua_tolstring(L, index, &length) else { return nil }
        return Array(UnsafeRawBufferPointer(start: pointer, count: length))
    }
}
