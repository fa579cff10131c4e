import Foundation

/// Encodes any `Encodable` value into a Lua value on a ``LuaStack``.
///
/// Structs and dictionaries become tables with string keys (an `[Int: V]`
/// dictionary uses integer keys), arrays become sequences, integers stay Lua
/// integers, `Double` and `Float` become floats, `Optional.none` becomes nil
/// (an absent field), `Data` a byte string, `Date` its seconds since 1970 as
/// a float, `URL` its absolute string, `Decimal` a float.
///
/// ```swift
/// try LuaEncoder().encode(settings, into: lua)   // or: try lua.push(encoding: settings)
/// ```
public struct LuaEncoder {
    /// Passed to the values being encoded, as `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder.
    public init() {}

    /// Encodes `value` and pushes the result on `stack` (one value).
    ///
    /// - Throws: ``LuaError`` of kind `.conversion` naming the coding path
    ///   when the value cannot be represented (an integer beyond Lua's range,
    ///   nesting deeper than ``LuaNesting/maxDepth``), or `.stackOverflow`
    ///   when the stack cannot hold it.
    public func encode(_ value: some Encodable, into stack: LuaStack) throws(LuaError) {
        let root = LuaEncodedValue()
        do {
            try LuaValueEncoder(target: root, codingPath: [], userInfo: userInfo).encodeValue(value)
        } catch let error as EncodingError {
            throw LuaError(.conversion, Self.message(for: error))
        } catch let error as LuaError {
            throw error
        } catch {
            throw LuaError(.conversion, String(describing: error))
        }
        try root.push(onto: stack)
    }

    static func message(for error: EncodingError) -> String {
        switch error {
        case .invalidValue(_, let context):
            return LuaCodingPath.message(context.debugDescription, at: context.codingPath)
        @unknown default:
            return String(describing: error)
        }
    }
}

/// The `Encoder` handed to `encode(to:)`: writes into one encoded value.
struct LuaValueEncoder: Encoder {
    let target: LuaEncodedValue
    let codingPath: [any CodingKey]
    let userInfoStorage: [CodingUserInfoKey: any Sendable]

    init(target: LuaEncodedValue, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.target = target
        self.codingPath = codingPath
        self.userInfoStorage = userInfo
    }

    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        target.makeFields()
        return KeyedEncodingContainer(LuaKeyedEncodingContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        target.makeElements()
        return LuaUnkeyedEncodingContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        LuaSingleValueEncodingContainer(encoder: self)
    }

    /// An encoder for a child value at `key`.
    func child(_ value: LuaEncodedValue, at key: any CodingKey) -> LuaValueEncoder {
        LuaValueEncoder(target: value, codingPath: codingPath + [key], userInfo: userInfoStorage)
    }

    /// Encodes `value` into `target`, with Lua forms for Foundation types.
    /// A value nested more than ``LuaNesting/maxDepth`` deep (or a graph of
    /// objects that refers back to itself, which would never end) is an
    /// error at its coding path.
    func encodeValue<T: Encodable>(_ value: T) throws {
        guard codingPath.count <= LuaNesting.maxDepth else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "values nested more than \(LuaNesting.maxDepth) deep cannot cross into Lua (is there a cycle?)"))
        }
        switch value {
        case let date as Date:
            target.content = .number(date.timeIntervalSince1970)
        case let data as Data:
            target.content = .bytes([UInt8](data))
        case let url as URL:
            target.content = .string(url.absoluteString)
        case let decimal as Decimal:
            target.content = .number(NSDecimalNumber(decimal: decimal).doubleValue)
        default:
            try value.encode(to: self)
        }
    }

    /// A Lua integer for any Swift integer, or an error naming the path.
    func integer<T: BinaryInteger>(_ value: T, at path: [any CodingKey]) throws -> LuaEncodedValue.Content {
        guard let exact = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path,
                    debugDescription: "integer \(value) is out of Lua's integer range (\(Int64.min)...\(Int64.max))"))
        }
        return .integer(exact)
    }
}
