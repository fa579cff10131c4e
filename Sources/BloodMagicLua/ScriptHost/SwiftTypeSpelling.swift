// How an app manifest spells the Swift type of an exposed member: the way
// Swift prints it (`Optional<Date>`, `Array<String>`,
// `Dictionary<String, Int>`), except that an exposed class is spelled with
// the name Lua knows it by, at any depth (`Optional<Client>` for a property
// of type `FeedClient?` exposed as `Client`). Editor annotations read these
// spellings back (``LuaTypeDescription/init(_:typeNames:)``), so a manifest
// and a live host annotate alike.

/// Swift collections whose element types a spelling names.
private protocol SpelledArray { static var spelledElement: Any.Type { get } }
private protocol SpelledSet { static var spelledElement: Any.Type { get } }
private protocol SpelledDictionary {
    static var spelledKey: Any.Type { get }
    static var spelledValue: Any.Type { get }
}

extension Array: SpelledArray {
    fileprivate static var spelledElement: Any.Type { Element.self }
}

extension Set: SpelledSet {
    fileprivate static var spelledElement: Any.Type { Element.self }
}

extension Dictionary: SpelledDictionary {
    fileprivate static var spelledKey: Any.Type { Key.self }
    fileprivate static var spelledValue: Any.Type { Value.self }
}

enum SwiftTypeSpelling {
    /// `type` spelled for a manifest; `className` gives the Lua name of an
    /// exposed class (nil: the class's own name).
    static func spelling(of type: Any.Type, className: (AnyClass) -> String?) -> String {
        if let optional = type as? any OptionalProtocol.Type {
            return "Optional<\(spelling(of: optional.wrappedType, className: className))>"
        }
        if let array = type as? any SpelledArray.Type {
            return "Array<\(spelling(of: array.spelledElement, className: className))>"
        }
        if let set = type as? any SpelledSet.Type {
            return "Set<\(spelling(of: set.spelledElement, className: className))>"
        }
        if let dictionary = type as? any SpelledDictionary.Type {
            return "Dictionary<\(spelling(of: dictionary.spelledKey, className: className)), "
                + "\(spelling(of: dictionary.spelledValue, className: className))>"
        }
        if let object = type as? AnyClass, let name = className(object) {
            return name
        }
        return String(describing: type)
    }
}
