/// The nested `Codable` type the `table` target decodes Lua tables into:
/// every kind of container (keyed, unkeyed, single value), optional and
/// required fields, recursion through arrays, dictionaries and an optional
/// child, and an enum with raw values.
public struct FuzzDocument: Codable, Equatable, Sendable {
    /// A required field: a table without it fails to decode.
    public var name: String
    /// An integer, which refuses floats with a fraction.
    public var count: Int?
    /// Any number (NaN included, compared as equal to itself).
    public var ratio: FuzzReal?
    /// A boolean.
    public var flag: Bool?
    /// A sequence of strings.
    public var tags: [String]?
    /// Nested documents in a sequence.
    public var children: [FuzzDocument]?
    /// Nested documents by string key.
    public var attributes: [String: FuzzDocument]?
    /// A dictionary with integer keys (a Lua table with integer keys).
    public var numbered: [Int: String]?
    /// One nested document, recursively.
    public var child: FuzzBox?
    /// An enum with string raw values.
    public var kind: Kind?
    /// Bytes, from a Lua string.
    public var bytes: [UInt8]?

    /// The values of ``kind``.
    public enum Kind: String, Codable, Sendable {
        case leaf, branch, root
    }
}

/// An optional nested document behind a class reference, so that the
/// recursion goes through a reference type as well as through collections.
public final class FuzzBox: Codable, Equatable, Sendable {
    /// The nested document.
    public let document: FuzzDocument

    /// Compares the documents.
    public static func == (lhs: FuzzBox, rhs: FuzzBox) -> Bool {
        lhs.document == rhs.document
    }
}

/// A `Double` that decodes from a single value and equals itself when NaN,
/// so that a decoded, encoded and decoded-again document compares equal.
public struct FuzzReal: Codable, Equatable, Sendable {
    /// The number.
    public var value: Double

    /// Decodes the number from a single value.
    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Double.self)
    }

    /// Encodes the number as a single value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// Equal numbers, or both NaN.
    public static func == (lhs: FuzzReal, rhs: FuzzReal) -> Bool {
        lhs.value == rhs.value || (lhs.value.isNaN && rhs.value.isNaN)
    }
}
