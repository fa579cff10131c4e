@_spi(BloodMagicInternals) import BloodMagic
import Foundation

/// What an app declared to its host for the manifest.
struct ManifestRecords {
    /// Declared containers, by registry name.
    var containers: [String: AppManifest.Container] = [:]
    /// The shapes of the globals set with `setGlobal`, by name.
    var globals: [String: AppManifest.ValueShape] = [:]
    /// How a validation gets an instance of each declared container, by
    /// registry name (see ScriptHost+Validation).
    var declared: [String: DeclaredContainer] = [:]
}

extension ScriptHost {
    /// Declares Swift classes whose spelled properties the scripts serve
    /// (hooks, preference overrides and initializers name them as
    /// `container`), so that ``manifest()`` describes them:
    ///
    /// ```swift
    /// host.declare(HeadlinesController.self, DigestController.self, Settings.self)
    /// ```
    ///
    /// The types are classes the host can make with `init()`: a class
    /// with an `init()` that takes no arguments, declared
    /// ``DefaultConstructible`` (an empty extension says so:
    /// `extension HeadlinesController: DefaultConstructible {}`). For any
    /// other class, use ``declare(instance:fileID:line:)``.
    ///
    /// Each type is made with `init()` and its spelled properties are read
    /// by reflection (`Mirror`), superclasses' included: every BloodMagic
    /// spell describes itself (``SpellDescribing``). Declaring resolves
    /// nothing, so `init()` should have no side effects. The host keeps the
    /// instance: ``reload()-6v5ua`` and ``validate()`` resolve its properties
    /// through the wiring (storing nothing in it; see <doc:LiveReload>).
    public func declare(_ types: any (AnyObject & DefaultConstructible).Type..., fileID: String = #fileID, line: Int = #line) {
        for type in types {
            record(declaring: type.init(), source: spellSource(fileID, line))
        }
    }

    /// Declares the class of `instance` as a container (see
    /// ``declare(_:fileID:line:)``), reading its spelled properties from
    /// this instance: `host.declare(instance: ProfileScreen(user: .preview))`.
    /// The host keeps the instance: ``reload()-6v5ua`` and ``validate()`` resolve
    /// its properties through the wiring (storing nothing in it) and hand it
    /// to the initializers they run as their sender.
    public func declare(instance: AnyObject, fileID: String = #fileID, line: Int = #line) {
        record(declaring: instance, source: spellSource(fileID, line))
    }

    /// Declares the struct `sample` is a value of, for the manifest: its
    /// ``Resolved`` properties (what it resolves when it is made, with no
    /// sender) join the containers, so that `bmlua check --manifest` reports
    /// a type nothing registers (an error at this call's line, as for a
    /// class's injectable property) and a registration that takes arguments.
    ///
    /// ```swift
    /// host.declare(value: CheckoutForm(pricing: Resolved(wrappedValue: .preview)))   // a sample: no resolution
    /// ```
    ///
    /// Make the sample without resolving: with the memberwise initializer
    /// (a `@Resolved var pricing: PricingService` takes
    /// `pricing: Resolved<PricingService>`, given as `Resolved(wrappedValue:)`),
    /// or once the wiring is in force. A struct has no instance for validations to
    /// resolve into: ``validate()`` and reloads leave it out. A class
    /// instance is declared as ``declare(instance:fileID:line:)`` declares it.
    public func declare(value sample: Any, fileID: String = #fileID, line: Int = #line) {
        let source = spellSource(fileID, line)
        if Swift.type(of: sample) is AnyClass {
            record(declaring: sample as AnyObject, source: source)
            return
        }
        let container = AppManifest.Container(
            name: SpellTypeKey(Swift.type(of: sample)).name, superclasses: [], source: source,
            properties: SpellReflection.properties(ofValue: sample).map(AppManifest.ContainerProperty.init)
                .sorted { $0.name < $1.name })
        manifestRecords.withLock { $0.containers[container.name] = container }
    }

    /// Records the container `sample` is an instance of, for the manifest
    /// and for validations (which resolve its properties on `sample`).
    private func record(declaring sample: AnyObject, source: String) {
        let type: AnyClass = Swift.type(of: sample)
        let container = AppManifest.Container(
            name: SpellTypeKey(type).name,
            superclasses: SpellReflection.superclasses(of: sample),
            source: source,
            properties: SpellReflection.properties(of: sample).map(AppManifest.ContainerProperty.init)
                .sorted { $0.name < $1.name })
        let declared = DeclaredContainer(name: container.name, source: source, instance: DeclaredInstance(sample))
        manifestRecords.withLock { records in
            records.containers[container.name] = container
            records.declared[container.name] = declared
        }
    }

    /// The app as its scripts see it: the types it exposed, the containers
    /// it declared, the registrations it made in Swift (not those of its
    /// scripts) and the shapes of the globals it set. Write it with
    /// ``AppManifest/jsonData()`` for `bmlua check --manifest`, or hand it
    /// to ``ScriptChecker/init(manifest:)`` in a test.
    public func manifest() -> AppManifest {
        let types = state.withStack { $0.manifestExposedTypes }
        let records = manifestRecords.withLock { $0 }
        let registrations = registry.entries
            .filter { !module.madeRegistration($0.handle) && !module.madeHostRegistration($0.handle) }
            .map(AppManifest.Registration.init)
        var manifest = AppManifest(
            types: types,
            containers: records.containers.values.sorted { $0.name < $1.name },
            registrations: registrations,
            globals: records.globals.map { AppManifest.Global(name: $0.key, value: $0.value) }.sorted { $0.name < $1.name })
        // The custom scopes a script may name (none: the field is left out).
        let scopes = registry.declaredScopes.map(\.rawValue)
        manifest.scopes = scopes.isEmpty ? nil : scopes
        return manifest
    }
}

extension LuaStack {
    /// The types the app exposed in this state, as a manifest describes
    /// them (an exposed class is named by its Lua name at any depth).
    var manifestExposedTypes: [LuaTypeDescription] {
        let className: (AnyClass) -> String? = { type in
            self.exposedType(for: type).flatMap { $0.isGlobal ? $0.name : nil }
        }
        return appExposedTypes.map { LuaTypeDescription($0, className: className) }
    }
}

extension LuaTypeDescription {
    /// Describes a type exposed in a state, in Swift syntax; `className`
    /// gives the Lua name of an exposed class (for property and result types).
    init(_ info: LuaExposedTypeInfo, className: (AnyClass) -> String?) {
        let members = info.members.values.sorted { $0.name < $1.name }
        func spelling(_ type: Any.Type) -> String { SwiftTypeSpelling.spelling(of: type, className: className) }
        self.init(
            name: info.name,
            swiftType: String(describing: info.swiftType),
            protocols: info.protocols,
            constructor: info.constructor.map { constructor in
                LuaFunctionDescription(
                    name: "new",
                    parameters: constructor.decodes == nil
                        ? constructor.names.map { names in
                            let required = LuaSignature(function: "", declared: names).minimum
                            let types = constructor.argumentTypes
                            return names.enumerated().map { index, declared in
                                LuaParameterDescription(
                                    name: declared.hasSuffix("?") ? String(declared.dropLast()) : declared,
                                    type: types.map { spelling($0[index]) } ?? Self.unknownType,
                                    optional: index >= required)
                            }
                        }
                        : nil,
                    acceptsNamedTable: constructor.acceptsNamedTable && constructor.decodes == nil,
                    decodes: constructor.decodes)
            },
            properties: members.filter(\.isProperty).map {
                LuaPropertyDescription(name: $0.name, type: Self.type($0.result, spelling) ?? Self.unknownType, writable: $0.write != nil)
            },
            methods: members.filter { !$0.isProperty }.map { member in
                LuaFunctionDescription(
                    name: member.name, parameters: Self.parameters(of: member, spelling: spelling),
                    returns: Self.type(member.result, spelling))
            },
            typeSyntax: .swift)
    }

    /// The type of a member's result: nil for none, `any` when not known.
    private static func type(_ result: LuaMemberResult, _ spelling: (Any.Type) -> String) -> String? {
        switch result {
        case .nothing: nil
        case .value(let type): spelling(type)
        case .unknown: unknownType
        }
    }

    /// A method's parameters: its declared names, and for typed parameters
    /// their Swift types (named `arg1`, `arg2`, … when the method declared
    /// no names); nil when it takes any.
    static func parameters(of member: LuaExposedMember, spelling: (Any.Type) -> String) -> [LuaParameterDescription]? {
        let signature = member.signature
        guard let types = member.argumentTypes else {
            return signature.names.map { names in
                names.enumerated().map { LuaParameterDescription(name: $0.element, optional: $0.offset >= signature.minimum) }
            }
        }
        return types.enumerated().map { offset, type in
            LuaParameterDescription(
                name: signature.name(of: offset + 1) ?? "arg\(offset + 1)",
                type: spelling(type),
                optional: offset >= signature.minimum)
        }
    }
}

extension AppManifest.Registration {
    /// Describes a registry entry.
    init(_ entry: SpellEntry) {
        var kindOf = false
        if case .kindOf = entry.container.rule { kindOf = true }
        self.init(
            kind: ScriptHost.luaKind(entry.kind),
            type: entry.type?.protocols == nil ? entry.type?.name : nil,
            protocols: entry.type?.protocols,
            container: entry.container.key?.name,
            includesSubclasses: kindOf ? true : nil,
            property: entry.property,
            scope: entry.scope?.rawValue,
            source: entry.source)
        named = entry.name
        arguments = entry.arguments
        forwarding = entry.forwardedRegistration
        async = entry.isAsync ? true : nil
        isolation = entry.isolation
    }
}

extension LuaStack {
    /// The shape of the value at `index` (tables read raw, to depth 4: at
    /// most 64 fields and 8 items a level are kept, but every entry is
    /// visited, once).
    func valueShape(at index: Int32, depth: Int = 0) -> AppManifest.ValueShape {
        let index = absolute(index)
        switch valueType(at: index) {
        case .nil, .none: return .init(kind: "nil")
        case .boolean: return .init(kind: "boolean")
        case .number: return .init(kind: isInteger(at: index) ? "integer" : "number")
        case .string: return .init(kind: "string")
        case .function: return .init(kind: "function")
        case .thread: return .init(kind: "thread")
        case .userdata, .lightUserdata:
            return .init(kind: "userdata", type: exposedType(ofObjectAt: index)?.name)
        case .table:
            guard depth < 4 else { return .init(kind: "table") }
            ensureSpace(3)
            var fields: [String: AppManifest.ValueShape] = [:]
            var items: [AppManifest.ValueShape] = []
            forEachEntry(ofTableAt: index) { () -> Bool in
                if valueType(at: -2) == .string, let key = rawString(at: -2), fields.count < 64 {
                    fields[key] = valueShape(at: -1, depth: depth + 1)
                }
                return true
            }
            for position in 1...8 {
                defer { pop() }
                guard pushItem(position, ofTableAt: index) != .nil else { break }
                items.append(valueShape(at: -1, depth: depth + 1))
            }
            return .init(kind: "table", fields: fields.isEmpty ? nil : fields, items: items.isEmpty ? nil : items)
        }
    }
}
