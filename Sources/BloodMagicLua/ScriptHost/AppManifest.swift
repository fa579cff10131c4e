import Foundation

/// What a Swift app offers its Lua wiring scripts, written down so that
/// tools can check (and complete) the scripts without running the app:
/// `bmlua check --manifest app.json Scripts`, ``ScriptChecker/init(manifest:)``,
/// editor annotations.
///
/// An app makes one with ``ScriptHost/manifest()`` once it has exposed its
/// types (``ScriptHost/expose(_:)``), set its globals
/// (``ScriptHost/setGlobal(_:_:)``) and declared its containers
/// (``ScriptHost/declare(_:fileID:line:)``), and writes it with
/// ``jsonData()``:
///
/// ```json
/// {
///   "format" : 1,
///   "types" : [ { "name" : "Cache", "swiftType" : "Cache", "protocols" : [ ],
///                 "constructor" : { "arguments" : [ { "name" : "capacity", "optional" : false } ] },
///                 "properties" : [ { "name" : "capacity", "type" : "Int", "writable" : false } ],
///                 "methods" : [ ] } ],
///   "containers" : [ { "name" : "HeadlinesController", "superclasses" : [ ],
///                      "source" : "feedreader/ScriptWiring.swift:31",
///                      "properties" : [ { "name" : "loader", "spell" : "injectable",
///                                         "protocols" : [ "FeedLoader" ], "swiftType" : "any FeedLoader",
///                                         "optional" : false, "declaredIn" : "HeadlinesController" } ] } ],
///   "registrations" : [ ],
///   "globals" : [ { "name" : "feedreader", "value" : { "kind" : "table", "fields" : {
///                   "feedsURL" : { "kind" : "string" } } } } ]
/// }
/// ```
///
/// **Versioning.** `format` is ``currentFormat`` (1). A reader refuses a
/// manifest of a newer format with a message saying so; fields may be added
/// within a format (readers ignore what they do not know), and a field is
/// removed or changes meaning only with a new format. Arrays are sorted by
/// name, so a manifest written twice from the same app is byte-identical.
public struct AppManifest: Codable, Sendable, Equatable {
    /// The format this version of BloodMagic writes and reads.
    public static let currentFormat = 1

    /// The manifest format: ``currentFormat`` when written by this version.
    public var format: Int
    /// The Swift classes exposed to Lua, by Lua name.
    public var types: [ExposedType]
    /// The Swift classes whose spelled properties the scripts serve, by name.
    public var containers: [Container]
    /// Registrations the app makes in Swift (not from scripts): they serve
    /// properties too, and a script's registration may shadow them.
    public var registrations: [Registration]
    /// The globals the app sets for the scripts, by name.
    public var globals: [Global]
    /// The custom scopes the app declared (``Registry/declareScope(_:)``) or
    /// registered with from Swift, sorted: those a script's `scope` may
    /// name besides the built-in ones. Nil (left out of the JSON) for none.
    public var scopes: [String]?

    /// A manifest of the current format.
    public init(
        types: [ExposedType] = [], containers: [Container] = [], registrations: [Registration] = [],
        globals: [Global] = []
    ) {
        self.format = Self.currentFormat
        self.types = types
        self.containers = containers
        self.registrations = registrations
        self.globals = globals
    }

    // MARK: - Exposed types

    /// A Swift class exposed to Lua with ``LuaExposedType``: a global table
    /// `name` with `new` (when it has a constructor) and its methods;
    /// objects with its properties and methods. The manifest's name for
    /// ``LuaTypeDescription``, the one model of an exposed type: a
    /// manifest's spell their members' types as Swift does (their
    /// ``LuaTypeDescription/typeSyntax`` is `.swift`).
    public typealias ExposedType = LuaTypeDescription
    /// How `Type.new(...)` takes its arguments: a ``LuaFunctionDescription``
    /// named `new`.
    public typealias Constructor = LuaFunctionDescription
    /// A declared argument of a constructor or method.
    public typealias Argument = LuaParameterDescription
    /// A property of an exposed type.
    public typealias Property = LuaPropertyDescription
    /// A method of an exposed type.
    public typealias Method = LuaFunctionDescription

    // MARK: - Containers

    /// A Swift class with spelled properties that scripts may serve: hooks,
    /// preference overrides and initializers name it in `container`.
    public struct Container: Codable, Sendable, Equatable {
        /// The registry name of the class (its unqualified name, or its
        /// ``SpellTypeNamed`` name).
        public var name: String
        /// Its superclasses by registry name, nearest first.
        public var superclasses: [String]
        /// Where the app declared it (`Module/File.swift:12`), for messages
        /// about its properties.
        public var source: String?
        /// Its spelled properties, own and inherited, by name.
        public var properties: [ContainerProperty]

        /// Describes a container.
        public init(name: String, superclasses: [String] = [], source: String? = nil, properties: [ContainerProperty]) {
            self.name = name
            self.superclasses = superclasses
            self.source = source
            self.properties = properties
        }
    }

    /// A spelled property of a Swift container.
    public struct ContainerProperty: Codable, Sendable, Equatable {
        /// The property's name.
        public var name: String
        /// Its spell.
        public var spell: SpelledPropertyInfo.Spell
        /// Its type, for a concrete type (`RequestManager`), by registry
        /// name; nil when it is a protocol set.
        public var type: String?
        /// Its protocol set, for a property declared `any A & B`, sorted;
        /// nil for a concrete type.
        public var protocols: [String]?
        /// The Swift spelling of its type (`Optional<Cache>`, `any FeedLoader`).
        public var swiftType: String
        /// Whether its type is an Optional (an injectable then reads nil
        /// when nothing serves it).
        public var optional: Bool
        /// For a lazy property: whether Swift can make it without a
        /// registered initializer (an initial value, or a `DefaultConstructible` type).
        public var defaultConstructible: Bool?
        /// For a preference: the key it reads.
        public var key: String?
        /// For a preference: whether Swift gives it a default value.
        public var hasDefault: Bool?
        /// For a custom spell: the spell's Swift type.
        public var customSpell: String?
        /// For `RegisteredSpell("name")`: the name of the registry spell it
        /// runs (written only then).
        public var spellName: String?
        /// The class that declares it (a superclass for an inherited property).
        public var declaredIn: String
        /// For `@Injectable(named:)`: the registration name it asks for
        /// (see ``SpellName``); absent for an unnamed property.
        public var named: String?

        /// Describes a property from what its wrapper reports.
        public init(_ info: SpelledPropertyInfo) {
            name = info.name
            spell = info.spell
            type = info.type.protocols == nil ? info.type.name : nil
            protocols = info.type.protocols
            swiftType = info.swiftType
            optional = info.isOptional
            defaultConstructible = info.spell == .lazy ? info.isDefaultConstructible : nil
            key = info.preferenceKey
            hasDefault = info.spell == .preference ? info.hasDefaultValue : nil
            customSpell = info.customSpell
            spellName = info.registeredSpellName
            declaredIn = info.declaringClass
            named = info.registrationName
        }

        /// The registry key of its type.
        public var typeKey: SpellTypeKey {
            protocols.map { SpellTypeKey(protocols: $0) } ?? SpellTypeKey(name: type ?? swiftType)
        }
    }

    // MARK: - Registrations and globals

    /// A registration the app made in Swift.
    public struct Registration: Codable, Sendable, Equatable {
        /// As ``ScriptHost/luaKind(_:)`` names it: `initializer`,
        /// `singleton`, `partial`, `hook`, `preference` or `spell`.
        public var kind: String
        /// The type it serves, for a concrete type.
        public var type: String?
        /// The protocol set it serves, for an existential.
        public var protocols: [String]?
        /// The container it is restricted to; nil for any container.
        public var container: String?
        /// Whether subclasses of `container` match too.
        public var includesSubclasses: Bool?
        /// The property of a hook or preference override, or a custom spell's name.
        public var property: String?
        /// `instance`, `singleton`, `weak`, `graph` or a custom scope's
        /// name (see ``AppManifest/scopes``), for initializers.
        public var scope: String?
        /// Where it was registered (`Module/File.swift:12`).
        public var source: String
        /// The registration name of a named initializer (see ``SpellName``).
        public var named: String?
        /// The arguments an initializer takes besides the sender (their Swift types).
        public var arguments: [String]?
        /// For a type an initializer serves too (forwarding): that
        /// initializer's type and place.
        public var forwarding: String?
        /// True for an `async` Swift initializer (``Registry/registerAsync(_:scope:fileID:line:initializer:)``):
        /// a script's read of it is synchronous, and fails until the value is made.
        public var async: Bool?
        /// The global actor the initializer is isolated to ("MainActor"), if any.
        public var isolation: String?

        /// Describes a registration.
        public init(
            kind: String, type: String? = nil, protocols: [String]? = nil, container: String? = nil,
            includesSubclasses: Bool? = nil, property: String? = nil, scope: String? = nil, source: String
        ) {
            self.kind = kind
            self.type = type
            self.protocols = protocols
            self.container = container
            self.includesSubclasses = includesSubclasses
            self.property = property
            self.scope = scope
            self.source = source
        }

        /// The registry key of the type it serves, if any.
        public var typeKey: SpellTypeKey? {
            if let protocols { return SpellTypeKey(protocols: protocols) }
            return type.map { SpellTypeKey(name: $0) }
        }
    }

    /// A global the app sets for its scripts (``ScriptHost/setGlobal(_:_:)``).
    public struct Global: Codable, Sendable, Equatable {
        /// The global's name.
        public var name: String
        /// The shape of its value (not the value: it may hold paths and
        /// settings of the machine that wrote the manifest).
        public var value: ValueShape

        /// Describes a global.
        public init(name: String, value: ValueShape) {
            self.name = name
            self.value = value
        }
    }

    /// The shape of a Lua value: its kind, and for a table the shapes of its
    /// fields and first items.
    public struct ValueShape: Codable, Sendable, Equatable {
        /// `nil`, `boolean`, `integer`, `number`, `string`, `table`,
        /// `function`, `userdata` or `thread`.
        public var kind: String
        /// For userdata of an exposed type: that type's Lua name.
        public var type: String?
        /// For a table: its string-keyed fields.
        public var fields: [String: ValueShape]?
        /// For a table: the shapes of its first array items (at most 8).
        public var items: [ValueShape]?

        /// Describes a value's shape.
        public init(kind: String, type: String? = nil, fields: [String: ValueShape]? = nil, items: [ValueShape]? = nil) {
            self.kind = kind
            self.type = type
            self.fields = fields
            self.items = items
        }
    }

    // MARK: - Reading and writing

    private enum CodingKeys: String, CodingKey {
        case format, types, containers, registrations, globals, scopes
    }

    /// Decodes a manifest, refusing a format newer than ``currentFormat``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(Int.self, forKey: .format)
        guard format >= 1, format <= Self.currentFormat else {
            throw DecodingError.dataCorruptedError(
                forKey: .format, in: container,
                debugDescription: "manifest format \(format) is not one this BloodMagic reads (1...\(Self.currentFormat))")
        }
        types = try container.decodeIfPresent([ExposedType].self, forKey: .types) ?? []
        containers = try container.decodeIfPresent([Container].self, forKey: .containers) ?? []
        registrations = try container.decodeIfPresent([Registration].self, forKey: .registrations) ?? []
        globals = try container.decodeIfPresent([Global].self, forKey: .globals) ?? []
        scopes = try container.decodeIfPresent([String].self, forKey: .scopes)
    }

    /// The manifest as pretty, key-sorted JSON (stable from run to run).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Writes the manifest as JSON (see ``jsonData()``) to the file at `path`.
    public func write(toFile path: String) throws {
        try jsonData().write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Reads the manifest at `path`; errors name the file and what is wrong.
    public static func read(from path: String) throws -> AppManifest {
        let data: Data
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw AppManifestError("\(path): no such file (the app writes its manifest with ScriptHost.manifest())")
        }
        if isDirectory.boolValue { throw AppManifestError("\(path): is a directory, not a manifest file") }
        // A regular file only, opened without blocking and read up to a cap
        // (a FIFO, a device or a /proc file never ends the read).
        do {
            data = Data(try ScriptFile.read(path, shownAs: path))
        } catch {
            throw AppManifestError("cannot read the manifest: \(error.message)")
        }
        do {
            return try JSONDecoder().decode(AppManifest.self, from: data)
        } catch let error as DecodingError {
            throw AppManifestError("\(path): not a BloodMagic app manifest (\(Self.describe(error)))")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default:
            return "\(error)"
        }
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        let reason = (context.underlyingError as NSError?)?.localizedDescription ?? context.debugDescription
        return path.isEmpty ? reason : "\(path.hasPrefix(".") ? String(path.dropFirst()) : path): \(reason)"
    }

    // MARK: - Lookups

    /// The container called `name`, if the manifest lists it.
    public func container(named name: String) -> Container? {
        containers.first { $0.name == name }
    }

    /// The exposed type called `name`, if the manifest lists it.
    public func type(named name: String) -> ExposedType? {
        types.first { $0.name == name }
    }
}

/// A manifest that cannot be read.
public struct AppManifestError: Error, CustomStringConvertible, Sendable {
    /// What is wrong, starting with the file.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
