/// The `bm` module's API as its Lua half describes it (the `[bm api]` chunk,
/// `BMModule/bm_api.lua`, over the prelude's schemas): the definition tables with the very schemas the runtime checks
/// use, each field with its Lua type and a one-line description; the
/// functions with their parameters and results; and the other values.
///
/// ``LuaAnnotations`` writes the editor annotations from it, so they follow
/// the API without being kept by hand.
public struct BMAPIDescription: Codable, Sendable, Equatable {
    /// A table shape: a definition table, or something `bm` hands out.
    public struct Shape: Codable, Sendable, Equatable {
        /// The annotation class name (`bm.InitializerDef`).
        public var name: String
        /// What it is, in one line.
        public var doc: String?
        /// Its fields, by name.
        public var fields: [Field]
    }

    /// One field of a shape.
    public struct Field: Codable, Sendable, Equatable {
        /// The field's name.
        public var name: String
        /// Its Lua type (LuaCATS syntax).
        public var lua: String
        /// What it means, in one line.
        public var doc: String?
        /// Whether a definition table must have it.
        public var required: Bool
    }

    /// A function of `bm`.
    public struct Function: Codable, Sendable, Equatable {
        /// Its full name (`bm.initializer`, `bm.spell.lazy`).
        public var name: String
        /// What it does, in one line.
        public var doc: String?
        /// Its parameters, in order.
        public var params: [Parameter]
        /// The Lua type of its result.
        public var returns: String?
    }

    /// A parameter of a function.
    public struct Parameter: Codable, Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its Lua type (LuaCATS syntax).
        public var lua: String
        /// Whether a call may leave it out.
        public var optional: Bool
    }

    /// A value of `bm` that is not a function (`bm.skip`, `bm.spell`).
    public struct Value: Codable, Sendable, Equatable {
        /// Its full name.
        public var name: String
        /// Its Lua type.
        public var lua: String
        /// What it is, in one line.
        public var doc: String?
    }

    /// The table shapes, in the module's order.
    public var classes: [Shape]
    /// The functions, in the module's order.
    public var functions: [Function]
    /// The other values.
    public var values: [Value]
}

extension BMAPIDescription {
    /// Decodes the description, with lists Lua may have left empty (an
    /// empty Lua table has no keys to tell an array from a map).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        classes = try container.decodeIfPresent([Shape].self, forKey: .classes) ?? []
        functions = try container.decodeIfPresent([Function].self, forKey: .functions) ?? []
        values = try container.decodeIfPresent([Value].self, forKey: .values) ?? []
    }

    private enum CodingKeys: String, CodingKey {
        case classes, functions, values
    }
}

extension BMAPIDescription.Function {
    /// Decodes a function; an empty Lua table of parameters means none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        doc = try container.decodeIfPresent(String.self, forKey: .doc)
        params = (try? container.decodeIfPresent([BMAPIDescription.Parameter].self, forKey: .params)) ?? []
        returns = try container.decodeIfPresent(String.self, forKey: .returns)
    }

    private enum CodingKeys: String, CodingKey {
        case name, doc, params, returns
    }
}
