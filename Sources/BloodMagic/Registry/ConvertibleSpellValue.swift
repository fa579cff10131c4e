/// A value an initializer returns that converts itself into the type of the
/// property it serves.
///
/// Swift initializers return values of the right type already. A script
/// bridge cannot: a Lua initializer returns a Lua value, which becomes a
/// Swift object, a decoded struct or a number only once the property's type is
/// known. Spells ask a returned value that conforms to this protocol for the
/// property's type before they give up with `SpellError.wrongValueType`.
public protocol ConvertibleSpellValue {
    /// This value as a `T`. A value that is not one throws
    /// ``SpellError/wrongValueType(property:container:expected:actual:source:)``
    /// with what it is as `actual` and where it came from as `source`; left
    /// empty, `property` (and `container` and `expected`) are filled in by
    /// the spell, which knows them.
    func converted<T>(to type: T.Type) throws -> T

    /// Whether the value stands for nothing (a script's nil): the spells
    /// then report an initializer that returned nil for a property that is
    /// not Optional, instead of asking for a conversion.
    var isNilValue: Bool { get }
}

extension ConvertibleSpellValue {
    /// Not nil, by default.
    public var isNilValue: Bool { false }
}
