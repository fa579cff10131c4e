import Foundation

/// A value a preference store holds: the property-list types, so that
/// integers stay integers and dates stay dates when read back.
///
/// Equality is exact, as a store must keep values: doubles and dates are
/// equal when their bits are (`.double(.nan) == .double(.nan)`, and
/// `.double(-0.0) != .double(0.0)`).
public enum PreferenceValue: Sendable, Equatable, CustomStringConvertible {
    /// A boolean.
    case bool(Bool)
    /// An integer (never turned into a double).
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A string (URLs are stored as their absolute string).
    case string(String)
    /// Raw bytes (archived Codable values are stored as JSON data).
    case data(Data)
    /// A point in time.
    case date(Date)
    /// An array of values.
    case array([PreferenceValue])
    /// A dictionary with string keys.
    case dictionary([String: PreferenceValue])

    /// Whether the two values are the same, bit for bit (see the type).
    public static func == (lhs: PreferenceValue, rhs: PreferenceValue) -> Bool {
        switch (lhs, rhs) {
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case let (.data(a), .data(b)): return a == b
        case let (.date(a), .date(b)):
            return a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case let (.array(a), .array(b)): return a == b
        case let (.dictionary(a), .dictionary(b)): return a == b
        default: return false
        }
    }

    /// The value written as Swift source would show it.
    public var description: String {
        switch self {
        case .bool(let value): return String(value)
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return "\"\(value)\""
        case .data(let value): return "<\(value.count) bytes>"
        case .date(let value): return value.description
        case .array(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let values):
            return "[" + values.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "]"
        }
    }

    /// The name of the case, for error messages.
    public var typeName: String {
        switch self {
        case .bool: return "Bool"
        case .int: return "Int"
        case .double: return "Double"
        case .string: return "String"
        case .data: return "Data"
        case .date: return "Date"
        case .array: return "Array"
        case .dictionary: return "Dictionary"
        }
    }

    /// The value as a Foundation property-list object (for UserDefaults).
    public var propertyListObject: Any {
        switch self {
        case .bool(let value): return value
        case .int(let value): return value
        case .double(let value): return value
        case .string(let value): return value
        case .data(let value): return value
        case .date(let value): return value
        case .array(let values): return values.map(\.propertyListObject)
        case .dictionary(let values): return values.mapValues(\.propertyListObject)
        }
    }

    /// Reads a property-list object (as UserDefaults returns it), keeping
    /// booleans, integers and doubles apart. Nil for anything else.
    public init?(propertyListObject object: Any) {
        if type(of: object) == Bool.self, let value = object as? Bool {
            self = .bool(value)
            return
        }
        if type(of: object) == Int.self, let value = object as? Int {
            self = .int(value)
            return
        }
        if type(of: object) == Double.self, let value = object as? Double {
            self = .double(value)
            return
        }
        switch object {
        case let number as NSNumber:
            let kind = String(cString: number.objCType)
            if kind == "c" || kind == "B" {
                self = .bool(number.boolValue)
            } else if kind == "d" || kind == "f" {
                self = .double(number.doubleValue)
            } else {
                self = .int(number.intValue)
            }
        case let value as String: self = .string(value)
        case let value as Data: self = .data(value)
        case let value as Date: self = .date(value)
        case let value as [Any]:
            var values: [PreferenceValue] = []
            for element in value {
                guard let converted = PreferenceValue(propertyListObject: element) else { return nil }
                values.append(converted)
            }
            self = .array(values)
        case let value as [String: Any]:
            var values: [String: PreferenceValue] = [:]
            for (key, element) in value {
                guard let converted = PreferenceValue(propertyListObject: element) else { return nil }
                values[key] = converted
            }
            self = .dictionary(values)
        default:
            return nil
        }
    }
}


/// A Swift type stored natively in a preference store (without archiving).
public protocol PreferenceRepresentable {
    /// The stored form.
    var preferenceValue: PreferenceValue { get }
    /// Reads the stored form; nil if it is not a value of this type.
    init?(preferenceValue: PreferenceValue)
}

extension Bool: PreferenceRepresentable {
    /// `.bool`.
    public var preferenceValue: PreferenceValue { .bool(self) }
    /// Reads `.bool`.
    public init?(preferenceValue: PreferenceValue) {
        guard case .bool(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension Int: PreferenceRepresentable {
    /// `.int`.
    public var preferenceValue: PreferenceValue { .int(self) }
    /// Reads `.int`, or an integral `.double`.
    public init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .int(let value): self = value
        case .double(let value) where value.rounded() == value && abs(value) < 9e18: self = Int(value)
        default: return nil
        }
    }
}

extension Double: PreferenceRepresentable {
    /// `.double`.
    public var preferenceValue: PreferenceValue { .double(self) }
    /// Reads `.double` or `.int`.
    public init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .double(let value): self = value
        case .int(let value): self = Double(value)
        default: return nil
        }
    }
}

extension String: PreferenceRepresentable {
    /// `.string`.
    public var preferenceValue: PreferenceValue { .string(self) }
    /// Reads `.string`.
    public init?(preferenceValue: PreferenceValue) {
        guard case .string(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension Data: PreferenceRepresentable {
    /// `.data`.
    public var preferenceValue: PreferenceValue { .data(self) }
    /// Reads `.data`.
    public init?(preferenceValue: PreferenceValue) {
        guard case .data(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension Date: PreferenceRepresentable {
    /// `.date`.
    public var preferenceValue: PreferenceValue { .date(self) }
    /// Reads `.date`.
    public init?(preferenceValue: PreferenceValue) {
        guard case .date(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension URL: PreferenceRepresentable {
    /// `.string` holding the absolute string, which reads back to an equal URL.
    public var preferenceValue: PreferenceValue { .string(absoluteString) }
    /// Reads a `.string` URL.
    public init?(preferenceValue: PreferenceValue) {
        guard case .string(let value) = preferenceValue, let url = URL(string: value) else { return nil }
        self = url
    }
}

extension Array: PreferenceRepresentable where Element: PreferenceRepresentable {
    /// `.array` of the elements.
    public var preferenceValue: PreferenceValue { .array(map(\.preferenceValue)) }
    /// Reads an `.array` whose elements all read as `Element`.
    public init?(preferenceValue: PreferenceValue) {
        guard case .array(let values) = preferenceValue else { return nil }
        var result: [Element] = []
        for value in values {
            guard let element = Element(preferenceValue: value) else { return nil }
            result.append(element)
        }
        self = result
    }
}

extension Dictionary: PreferenceRepresentable where Key == String, Value: PreferenceRepresentable {
    /// `.dictionary` of the values.
    public var preferenceValue: PreferenceValue { .dictionary(mapValues(\.preferenceValue)) }
    /// Reads a `.dictionary` whose values all read as `Value`.
    public init?(preferenceValue: PreferenceValue) {
        guard case .dictionary(let values) = preferenceValue else { return nil }
        var result: [String: Value] = [:]
        for (key, value) in values {
            guard let element = Value(preferenceValue: value) else { return nil }
            result[key] = element
        }
        self = result
    }
}

/// Encoding of any value a @Preference can hold: natively for
/// `PreferenceRepresentable` types, archived as JSON data for other
/// `Codable` types (like DeluxeInjection's DIDefaultsArchived).
public enum PreferenceCoding {
    /// The stored form of `value`; nil for an Optional that is nil.
    public static func encode<Value: Codable>(_ value: Value, key: String) throws -> PreferenceValue? {
        if let optional = value as? any OptionalProtocol {
            guard let wrapped = optional.wrappedAny else { return nil }
            if let native = wrapped as? any PreferenceRepresentable { return native.preferenceValue }
        } else if let native = value as? any PreferenceRepresentable {
            return native.preferenceValue
        }
        do {
            // Sorted keys: the same value is always the same bytes.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return .data(try encoder.encode(value))
        } catch {
            throw SpellError.preferenceEncodingFailed(key: key, type: "\(Value.self)", reason: "\(error)")
        }
    }

    /// Reads `stored` as a `Value`; nil if it is not one.
    public static func decode<Value: Codable>(_ stored: PreferenceValue, as type: Value.Type) -> Value? {
        var target: Any.Type = Value.self
        if let optional = Value.self as? any OptionalProtocol.Type { target = optional.wrappedType }
        if let native = target as? any PreferenceRepresentable.Type {
            guard let decoded = native.init(preferenceValue: stored) else { return nil }
            return decoded as? Value
        }
        guard case .data(let data) = stored else { return nil }
        return try? JSONDecoder().decode(Value.self, from: data)
    }
}
