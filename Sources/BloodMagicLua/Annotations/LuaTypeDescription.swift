/// A Swift class exposed to Lua, as scripts see it: the name they use, the
/// protocols it conforms to for registry matching, its constructor,
/// properties and methods.
///
/// The one model of an exposed type. An app's manifest lists its exposed
/// types as these (``AppManifest/types``, made by ``ScriptHost/manifest()``
/// from the ``LuaExposedType``s a host exposed), and ``LuaAnnotations``
/// writes one `---@class` per description. Descriptions may also come from
/// anywhere else that describes an app's types: they are `Codable`, and a
/// short JSON description leaves out what has a natural default
/// (LuaTypeDescription+Codable.swift).
///
/// The types of members are written in one of two syntaxes, as
/// ``typeSyntax`` says: as Swift spells them (`Optional<String>`, `[Int]`:
/// a manifest's), or in LuaCATS syntax, as annotations write them
/// (`string?`, `integer[]`, `table<string, integer>`, `Cache?`, the name of
/// another described type). ``init(_:typeNames:)`` turns the first into the
/// second. In both, `any` stands for a type that is not known.
public struct LuaTypeDescription: Codable, Sendable, Equatable {
    /// How the types of a description's members are written.
    public enum TypeSyntax: String, Codable, Sendable {
        /// As Swift spells them: `String`, `Optional<Int>`, `[String: Double]`.
        case swift
        /// As LuaCATS (lua-language-server's annotations) writes them:
        /// `string`, `integer?`, `table<string, number>`.
        case lua
    }

    /// The type of a member that is not known (a property or argument the
    /// Swift side reads itself, a method that pushes its own results), in
    /// either syntax.
    public static let unknownType = "any"

    /// The name scripts use: the global class table and its objects' type.
    public var name: String
    /// The Swift class's name, for a type described from Swift (a manifest's).
    public var swiftType: String?
    /// One line about the type, if any.
    public var summary: String?
    /// The protocols it conforms to, by name (registry matching:
    /// ``LuaExposedType/conforms(to:)``).
    public var protocols: [String]
    /// `Name.new(...)`, if scripts can make objects.
    public var constructor: LuaFunctionDescription?
    /// The properties, read-only or read-write, by name.
    public var properties: [LuaPropertyDescription]
    /// The methods, called as `object:name(...)`, by name.
    public var methods: [LuaFunctionDescription]
    /// How the types of the members are written.
    public var typeSyntax: TypeSyntax

    /// Describes a type. Without `typeSyntax`, its members' types are in
    /// Swift syntax when `swiftType` is given (a type described from Swift),
    /// else in LuaCATS syntax.
    public init(
        name: String, swiftType: String? = nil, summary: String? = nil, protocols: [String] = [],
        constructor: LuaFunctionDescription? = nil, properties: [LuaPropertyDescription] = [],
        methods: [LuaFunctionDescription] = [], typeSyntax: TypeSyntax? = nil
    ) {
        self.name = name
        self.swiftType = swiftType
        self.summary = summary
        self.protocols = protocols
        self.constructor = constructor
        self.properties = properties
        self.methods = methods
        self.typeSyntax = typeSyntax ?? (swiftType == nil ? .lua : .swift)
    }
}

/// A property of a described type.
public struct LuaPropertyDescription: Codable, Sendable, Equatable {
    /// Its name.
    public var name: String
    /// Its type (in its type's ``LuaTypeDescription/typeSyntax``; `any`
    /// when not known).
    public var type: String
    /// Whether scripts may assign it.
    public var writable: Bool
    /// One line about it, if any.
    public var summary: String?

    /// Describes a property.
    public init(name: String, type: String = LuaTypeDescription.unknownType, writable: Bool = false, summary: String? = nil) {
        self.name = name
        self.type = type
        self.writable = writable
        self.summary = summary
    }
}

/// A method or constructor of a described type.
public struct LuaFunctionDescription: Codable, Sendable, Equatable {
    /// Its name (`new` for a constructor).
    public var name: String
    /// The parameters after `self` (positional, or for a constructor that
    /// ``acceptsNamedTable``, the fields of one table), or nil when it takes
    /// any arguments.
    public var parameters: [LuaParameterDescription]?
    /// The type of its result: nil when it returns nothing (for a
    /// constructor: an object of its type), `any` when it is not known.
    public var returns: String?
    /// For a constructor: whether one table of named arguments may stand
    /// for the positional ones (`Name.new { baseURL = "…" }`).
    public var acceptsNamedTable: Bool
    /// For a constructor declared with ``LuaExposedType/constructor(decoding:_:)``:
    /// the `Decodable` type its single table argument decodes into.
    public var decodes: String?
    /// One line about it, if any.
    public var summary: String?

    /// Describes a method or constructor.
    public init(
        name: String, parameters: [LuaParameterDescription]? = [], returns: String? = nil,
        acceptsNamedTable: Bool = false, decodes: String? = nil, summary: String? = nil
    ) {
        self.name = name
        self.parameters = parameters
        self.returns = returns
        self.acceptsNamedTable = acceptsNamedTable
        self.decodes = decodes
        self.summary = summary
    }

    /// Describes a method as a manifest's fields say it: `returns` is its
    /// result's Swift spelling, `Void` when it returns nothing, nil when it
    /// is not known (a method that pushes its own results).
    public init(name: String, arguments: [LuaParameterDescription]?, returns: String?) {
        self.init(name: name, parameters: arguments, returns: Self.result(swiftSpelling: returns))
    }

    /// A result as a manifest spells it (`Void` for none; nil when not
    /// known), as a description holds it (nil; `any`).
    static func result(swiftSpelling spelling: String?) -> String? {
        switch spelling {
        case nil: LuaTypeDescription.unknownType
        case "Void", "()": nil
        case let spelling?: spelling
        }
    }

    /// The reverse of ``result(swiftSpelling:)``.
    static func swiftSpelling(result: String?) -> String? {
        switch result {
        case nil: "Void"
        case .some(LuaTypeDescription.unknownType): nil
        case let result?: result
        }
    }

    /// ``parameters`` by the name a manifest gives them (`arguments`).
    public var arguments: [LuaParameterDescription]? {
        get { parameters }
        set { parameters = newValue }
    }
}

/// One parameter of a described method or constructor.
public struct LuaParameterDescription: Codable, Sendable, Equatable {
    /// Its name (the key in a table of named arguments).
    public var name: String
    /// Its type (in its type's ``LuaTypeDescription/typeSyntax``; `any`
    /// when the function reads it itself).
    public var type: String
    /// Whether a call may leave it out (declared with a trailing `?`).
    public var optional: Bool

    /// Describes a parameter.
    public init(name: String, type: String = LuaTypeDescription.unknownType, optional: Bool = false) {
        self.name = name
        self.type = type
        self.optional = optional
    }

    /// Describes a parameter in a manifest's order of fields; a nil `type`
    /// is `any`.
    public init(name: String, optional: Bool, type: String?) {
        self.init(name: name, type: type ?? LuaTypeDescription.unknownType, optional: optional)
    }
}
