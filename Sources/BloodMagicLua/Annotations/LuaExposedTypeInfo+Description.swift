// Exposed types as ``LuaTypeDescription``s: what `ScriptHost.annotations()`
// writes for the Swift types a host exposes.

extension LuaExposedTypeInfo {
    /// This type as scripts see it; `className` gives the Lua name of another
    /// exposed class (for property and result types).
    func typeDescription(className: (AnyClass) -> String?) -> LuaTypeDescription {
        let properties = members.values.filter(\.isProperty).sorted { $0.name < $1.name }.map { member in
            LuaPropertyDescription(
                name: member.name, type: Self.luaType(of: member.result, className: className) ?? "any",
                writable: member.write != nil)
        }
        let methods = members.values.filter { !$0.isProperty }.sorted { $0.name < $1.name }.map { member in
            LuaFunctionDescription(
                name: member.name, parameters: Self.parameters(member.signature),
                returns: Self.luaType(of: member.result, className: className))
        }
        return LuaTypeDescription(
            name: name, protocols: protocols,
            constructor: constructor.map { constructor in
                LuaFunctionDescription(
                    name: "new", parameters: constructor.names.map(Self.parameters(declared:)), returns: name,
                    acceptsNamedTable: constructor.acceptsNamedTable)
            },
            properties: properties, methods: methods)
    }

    /// A member's Lua type: nil when it gives nothing.
    private static func luaType(of result: LuaMemberResult, className: (AnyClass) -> String?) -> String? {
        switch result {
        case .nothing: nil
        case .value(let type): LuaAnnotationType.name(of: type, className: className)
        case .unknown: "any"
        }
    }

    /// The declared parameters of a method (nil: any arguments).
    private static func parameters(_ signature: LuaSignature) -> [LuaParameterDescription]? {
        guard let names = signature.names else { return nil }
        return names.enumerated().map { index, name in
            LuaParameterDescription(name: name, optional: index >= signature.minimum)
        }
    }

    /// Parameters from declared names, a trailing `?` marking an optional one.
    private static func parameters(declared: [String]) -> [LuaParameterDescription] {
        let minimum = declared.lastIndex(where: { !$0.hasSuffix("?") }).map { $0 + 1 } ?? 0
        return declared.enumerated().map { index, name in
            LuaParameterDescription(
                name: name.hasSuffix("?") ? String(name.dropLast()) : name, optional: index >= minimum)
        }
    }
}

extension LuaStack {
    /// Every type exposed in this state with a global class table, described
    /// for editor annotations, by name.
    public var exposedTypeDescriptions: [LuaTypeDescription] {
        let registry = exposedTypes
        let className: (AnyClass) -> String? = { type in
            registry.info(for: type).flatMap { $0.isGlobal ? $0.name : nil }
        }
        return registry.byName.values.filter(\.isGlobal).sorted { $0.name < $1.name }.map {
            $0.typeDescription(className: className)
        }
    }
}

extension LuaState {
    /// Every type exposed in this state, described; see ``LuaStack/exposedTypeDescriptions``.
    public var exposedTypeDescriptions: [LuaTypeDescription] {
        withStack { $0.exposedTypeDescriptions }
    }
}
