// How a type description reads and writes as JSON: the app manifest's
// format 1 (AppManifest.swift), which a hand-written description shares.
//
// Decoding leaves out what has a natural default, so a hand-written or
// generated description stays short: no `protocols`, `properties` or
// `methods` means none; a property or parameter without `type` is `any`; a
// function without `arguments` (or `parameters`, as older descriptions call
// them) takes any arguments; a function without `name` is the constructor,
// `new`. A type with a `swiftType` spells its members' types as Swift does,
// one without in LuaCATS syntax, unless `typeSyntax` says otherwise.
//
// In Swift syntax a method's result is written as a manifest writes it:
// `Void` when it returns nothing, left out when it is not known (in memory:
// nil and `any`, as in LuaCATS syntax). Encoding leaves out the defaults,
// so a manifest reads byte for byte as before the two models were one.

extension LuaTypeDescription {
    private enum CodingKeys: String, CodingKey {
        case name, swiftType, summary, protocols, constructor, properties, methods, typeSyntax
    }

    /// Decodes a description; missing lists are empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            swiftType: try container.decodeIfPresent(String.self, forKey: .swiftType),
            summary: try container.decodeIfPresent(String.self, forKey: .summary),
            protocols: try container.decodeIfPresent([String].self, forKey: .protocols) ?? [],
            constructor: try container.decodeIfPresent(LuaFunctionDescription.self, forKey: .constructor),
            properties: try container.decodeIfPresent([LuaPropertyDescription].self, forKey: .properties) ?? [],
            methods: try container.decodeIfPresent([LuaFunctionDescription].self, forKey: .methods) ?? [],
            typeSyntax: try container.decodeIfPresent(TypeSyntax.self, forKey: .typeSyntax))
        if typeSyntax == .swift {
            for index in methods.indices {
                methods[index].returns = LuaFunctionDescription.result(swiftSpelling: methods[index].returns)
            }
        }
    }

    /// Encodes the description, leaving out what decoding would restore.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(swiftType, forKey: .swiftType)
        try container.encodeIfPresent(summary, forKey: .summary)
        try container.encode(protocols, forKey: .protocols)
        try container.encodeIfPresent(constructor, forKey: .constructor)
        try container.encode(properties, forKey: .properties)
        if typeSyntax == .swift {
            try container.encode(methods.map { method in
                var written = method
                written.returns = LuaFunctionDescription.swiftSpelling(result: method.returns)
                return written
            }, forKey: .methods)
        } else {
            try container.encode(methods, forKey: .methods)
        }
        if typeSyntax != (swiftType == nil ? .lua : .swift) { try container.encode(typeSyntax, forKey: .typeSyntax) }
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
            type: try container.decodeIfPresent(String.self, forKey: .type) ?? LuaTypeDescription.unknownType,
            writable: try container.decodeIfPresent(Bool.self, forKey: .writable) ?? false,
            summary: try container.decodeIfPresent(String.self, forKey: .summary))
    }

    /// Encodes the property (an `any` type left out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        if type != LuaTypeDescription.unknownType { try container.encode(type, forKey: .type) }
        try container.encode(writable, forKey: .writable)
        try container.encodeIfPresent(summary, forKey: .summary)
    }
}

extension LuaFunctionDescription {
    private enum CodingKeys: String, CodingKey {
        case name, arguments, parameters, returns, acceptsNamedTable, decodes, summary
    }

    /// Decodes a function; without `arguments` it takes any arguments,
    /// without `name` it is the constructor.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decodeIfPresent(String.self, forKey: .name) ?? "new",
            parameters: try container.decodeIfPresent([LuaParameterDescription].self, forKey: .arguments)
                ?? container.decodeIfPresent([LuaParameterDescription].self, forKey: .parameters),
            returns: try container.decodeIfPresent(String.self, forKey: .returns),
            acceptsNamedTable: try container.decodeIfPresent(Bool.self, forKey: .acceptsNamedTable) ?? false,
            decodes: try container.decodeIfPresent(String.self, forKey: .decodes),
            summary: try container.decodeIfPresent(String.self, forKey: .summary))
    }

    /// Encodes the function (as `arguments`; the name `new`, and
    /// `acceptsNamedTable` when false, left out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if name != "new" { try container.encode(name, forKey: .name) }
        try container.encodeIfPresent(parameters, forKey: .arguments)
        try container.encodeIfPresent(returns, forKey: .returns)
        if acceptsNamedTable { try container.encode(true, forKey: .acceptsNamedTable) }
        try container.encodeIfPresent(decodes, forKey: .decodes)
        try container.encodeIfPresent(summary, forKey: .summary)
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
            type: try container.decodeIfPresent(String.self, forKey: .type) ?? LuaTypeDescription.unknownType,
            optional: try container.decodeIfPresent(Bool.self, forKey: .optional) ?? false)
    }

    /// Encodes the parameter (an `any` type left out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(optional, forKey: .optional)
        if type != LuaTypeDescription.unknownType { try container.encode(type, forKey: .type) }
    }
}
