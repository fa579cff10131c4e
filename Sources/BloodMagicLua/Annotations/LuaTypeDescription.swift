/// A Swift type as Lua scripts see it — its constructor, properties and
/// methods with their Lua types — for editor annotations.
///
/// ``LuaAnnotations`` writes one `---@class` per description. Descriptions
/// come from the types a host exposes (``LuaExposedTypeInfo/typeDescription``),
/// or from anywhere else that describes an app's types (they are `Codable`,
/// so a JSON file describing an app maps onto them). Types are written in
/// LuaCATS syntax: `string`, `integer`, `number`, `boolean`, `any`, `string[]`,
/// `table<string, integer>`, `Cache?`, the name of another described type.
public struct LuaTypeDescription: Codable, Sendable, Equatable {
    /// The name scripts use: the global class table and its objects' type.
    public var name: String
    /// One line about the type, if any.
    public var summary: String?
    /// The protocols it conforms to, by name (registry matching).
    public var protocols: [String]
    /// `Name.new(...)`, if scripts can make objects.
    public var constructor: LuaFunctionDescription?
    /// The properties, read-only or read-write.
    public var properties: [LuaPropertyDescription]
    /// The methods, called as `object:name(...)`.
    public var methods: [LuaFunctionDescription]

    /// Describes a type.
    public init(
        name: String, summary: String? = nil, protocols: [String] = [], constructor: LuaFunctionDescription? = nil,
        properties: [LuaPropertyDescription] = [], methods: [LuaFunctionDescription] = []
    ) {
        self.name = name
        self.summary = summary
        self.protocols = protocols
        self.constructor = constructor
        self.properties = properties
        self.methods = methods
    }
}

/// A property of a described type.
public struct LuaPropertyDescription: Codable, Sendable, Equatable {
    /// Its name.
    public var name: String
    /// Its Lua type (LuaCATS syntax).
    public var type: String
    /// Whether scripts may assign it.
    public var writable: Bool
    /// One line about it, if any.
    public var summary: String?

    /// Describes a property.
    public init(name: String, type: String = "any", writable: Bool = false, summary: String? = nil) {
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
    /// The parameters, or nil when it takes any arguments.
    public var parameters: [LuaParameterDescription]?
    /// The Lua type of its result, or nil when it returns nothing.
    public var returns: String?
    /// For a constructor: whether one table of named arguments may stand
    /// for the positional ones (`Name.new { baseURL = "…" }`).
    public var acceptsNamedTable: Bool
    /// One line about it, if any.
    public var summary: String?

    /// Describes a method or constructor.
    public init(
        name: String, parameters: [LuaParameterDescription]? = [], returns: String? = nil,
        acceptsNamedTable: Bool = false, summary: String? = nil
    ) {
        self.name = name
        self.parameters = parameters
        self.returns = returns
        self.acceptsNamedTable = acceptsNamedTable
        self.summary = summary
    }
}

/// One parameter of a described method or constructor.
public struct LuaParameterDescription: Codable, Sendable, Equatable {
    /// Its name.
    public var name: String
    /// Its Lua type (LuaCATS syntax).
    public var type: String
    /// Whether a call may leave it out.
    public var optional: Bool

    /// Describes a parameter.
    public init(name: String, type: String = "any", optional: Bool = false) {
        self.name = name
        self.type = type
        self.optional = optional
    }
}

// Decoding leaves out what has a natural default, so a hand-written or
// generated JSON description stays short: no `protocols`, `properties` or
// `methods` means none, a property or parameter without `type` is `any`, a
// function without `parameters` takes any arguments.

extension LuaTypeDescription {
    private enum CodingKeys: String, CodingKey {
        case name, summary, protocols, constructor, properties, methods
    }

    /// Decodes a description; missing lists are empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            summary: try container.decodeIfPresent(String.self, forKey: .summary),
            protocols: try container.decodeIfPresent([String].self, forKey: .protocols) ?? [],
            constructor: try container.decodeIfPresent(LuaFunctionDescription.self, forKey: .constructor),
            properties: try container.decodeIfPresent([LuaPropertyDescription].self, forKey: .properties) ?? [],
            methods: try container.decodeIfPresent([LuaFunctionDescription].self, forKey: .methods) ?? [])
    }
}

extension LuaPropertyDescription {
    private enum CodingKeys: String, CodingKey {
        case name, type, writable, summary
    }

    /// Decodes a property; the type defaults to `any`, `writable` to false.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            type: try container.decodeIfPresent(String.self, forKey: .type) ?? "any",
            writable: try container.decodeIfPresent(Bool.self, forKey: .writable) ?? false,
            summary: try container.decodeIfPresent(String.self, forKey: .summary))
    }
}

extension LuaFunctionDescription {
    private enum CodingKeys: String, CodingKey {
        case name, parameters, returns, acceptsNamedTable, summary
    }

    /// Decodes a function; without `parameters` it takes any arguments.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            parameters: try container.decodeIfPresent([LuaParameterDescription].self, forKey: .parameters),
            returns: try container.decodeIfPresent(String.self, forKey: .returns),
            acceptsNamedTable: try container.decodeIfPresent(Bool.self, forKey: .acceptsNamedTable) ?? false,
            summary: try container.decodeIfPresent(String.self, forKey: .summary))
    }
}

extension LuaParameterDescription {
    private enum CodingKeys: String, CodingKey {
        case name, type, optional
    }

    /// Decodes a parameter; the type defaults to `any`, `optional` to false.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            type: try container.decodeIfPresent(String.self, forKey: .type) ?? "any",
            optional: try container.decodeIfPresent(Bool.self, forKey: .optional) ?? false)
    }
}
