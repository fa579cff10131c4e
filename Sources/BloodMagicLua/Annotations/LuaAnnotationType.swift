// The Lua type (LuaCATS syntax) of a Swift type that crosses into Lua, for
// editor annotations of exposed types' properties and method results.

/// Swift collections whose element types the annotations name.
private protocol AnnotatedArray { static var annotatedElement: Any.Type { get } }
private protocol AnnotatedDictionary {
    static var annotatedKey: Any.Type { get }
    static var annotatedValue: Any.Type { get }
}

extension Array: AnnotatedArray {
    fileprivate static var annotatedElement: Any.Type { Element.self }
}

extension Dictionary: AnnotatedDictionary {
    fileprivate static var annotatedKey: Any.Type { Key.self }
    fileprivate static var annotatedValue: Any.Type { Value.self }
}

enum LuaAnnotationType {
    /// The LuaCATS type of values of `type` in Lua: `string`, `integer`,
    /// `number`, `boolean`, `T[]`, `table<K, V>`, `T?`, an exposed class's
    /// Lua name (`className` gives it; nil: `userdata`), else `any`.
    static func name(of type: Any.Type, className: (AnyClass) -> String?) -> String {
        if let optional = type as? any OptionalProtocol.Type {
            let wrapped = name(of: optional.wrappedType, className: className)
            return wrapped == "any" ? "any" : optionalName(wrapped)
        }
        switch type {
        case is String.Type, is Substring.Type, is Character.Type: return "string"
        case is Bool.Type: return "boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is Int16.Type, is Int8.Type,
             is UInt.Type, is UInt64.Type, is UInt32.Type, is UInt16.Type, is UInt8.Type:
            return "integer"
        case is Double.Type, is Float.Type: return "number"
        case is LuaValue.Type: return "any"
        default: break
        }
        if let array = type as? any AnnotatedArray.Type {
            return group(name(of: array.annotatedElement, className: className)) + "[]"
        }
        if let dictionary = type as? any AnnotatedDictionary.Type {
            let key = name(of: dictionary.annotatedKey, className: className)
            return "table<\(key), \(name(of: dictionary.annotatedValue, className: className))>"
        }
        if let object = type as? AnyClass {
            return className(object) ?? "userdata"
        }
        return "any"
    }

    /// `T?`, or `(A|B)?` for a union.
    static func optionalName(_ name: String) -> String {
        group(name) + "?"
    }

    /// A union in parentheses, so a suffix applies to all of it.
    private static func group(_ name: String) -> String {
        name.contains("|") ? "(\(name))" : name
    }
}
