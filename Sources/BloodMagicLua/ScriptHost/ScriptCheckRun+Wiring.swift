import Foundation

/// The checks that need no script to run: what registrations name against
/// what the Lua classes and the app's Swift containers declare.
extension ScriptCheckRun {
    /// A spelled property of a Lua class, as the prelude reports it.
    struct SpellRow: Decodable {
        var `class`: String
        var property: String
        var kind: String
        var type: String?
        var protocols: [String]?
        var optional: Bool
        var source: String

        var key: SpellTypeKey { BMModule.typeKey(type: type, protocols: protocols) }
        var isInjected: Bool { ["lazy", "injectable", "partial", "provider"].contains(kind) }
    }

    /// A container the scripts may name: a Lua class or a Swift container
    /// of the manifest, with its spelled properties.
    struct KnownContainer {
        struct Property {
            var name: String
            var kind: String
            var key: SpellTypeKey
            var optional: Bool
        }

        var name: String
        var isSwift: Bool
        var properties: [Property]

        func properties(for kind: SpellEntryKind) -> [Property] {
            properties.filter { kind == .hook ? ["lazy", "injectable", "partial"].contains($0.kind) : $0.kind == "preference" }
        }
    }

    func spellReport() throws -> [SpellRow] {
        try callPrelude("spell_report", as: [SpellRow].self)
    }

    func knownContainers(_ report: [SpellRow]) -> [String: KnownContainer] {
        var containers: [String: KnownContainer] = [:]
        for name in host.luaClasses.keys {
            containers[name] = KnownContainer(name: name, isSwift: false, properties: [])
        }
        for row in report {
            containers[row.class, default: KnownContainer(name: row.class, isSwift: false, properties: [])].properties
                .append(.init(name: row.property, kind: row.kind, key: row.key, optional: row.optional))
        }
        for container in manifest?.containers ?? [] {
            var known = containers[container.name] ?? KnownContainer(name: container.name, isSwift: true, properties: [])
            known.properties += container.properties.map {
                .init(name: $0.name, kind: $0.spell.rawValue, key: $0.typeKey, optional: $0.optional)
            }
            containers[container.name] = known
        }
        return containers
    }

    /// The scripts' own registrations of the given kinds.
    func scriptEntries(_ kinds: Set<SpellEntryKind>) -> [SpellEntry] {
        scriptRegistrations.filter { kinds.contains($0.kind) }
    }

    /// Who may declare a container, for messages: Lua classes, and the
    /// manifest's Swift containers when there is one.
    private var declarers: String {
        manifest == nil ? "no Lua class declares" : "neither a Lua class nor the app's manifest declares"
    }

    /// Hooks and preference overrides whose container or property nobody declares.
    func checkHooksAndPreferences(_ containers: [String: KnownContainer]) {
        for entry in scriptEntries([.hook, .preferenceOverride]) {
            guard let property = entry.property else { continue }
            let what = entry.kind == .hook ? "bm.hook" : "bm.preference"
            let adjective = entry.kind == .hook ? "injected" : "preference"
            if let name = entry.container.key?.name {
                guard let container = containers[name] else {
                    var message = "\(what) names container \(name), which \(declarers)"
                    message += ClosestNames.suffix(for: name, in: containers.keys)
                    if manifest == nil { message += "; for a Swift container, give check the app's manifest" }
                    add(.warning, message, at: entry.source, field: "container")
                    continue
                }
                let candidates = container.properties(for: entry.kind)
                if !candidates.contains(where: { $0.name == property }) {
                    add(.warning,
                        "\(what) for \(name).\(property): \(name) declares no \(adjective) property '\(property)'"
                            + ClosestNames.suffix(for: property, in: candidates.map(\.name)),
                        at: entry.source, field: "property")
                }
            } else {
                let candidates = containers.values.flatMap { $0.properties(for: entry.kind) }.map(\.name)
                if !candidates.contains(property) {
                    let who = manifest == nil ? "no Lua class declares" : "no Lua class or Swift container declares"
                    add(.warning,
                        "\(what) for property '\(property)': \(who) a spelled property of that name"
                            + ClosestNames.suffix(for: property, in: candidates),
                        at: entry.source, field: "property")
                }
            }
        }
    }

    /// The closest registrations to `key`, as runtime errors list them.
    private func closest(to key: SpellTypeKey) -> String {
        let near = registry.closestRegistrations(to: key)
        return near.isEmpty ? "" : " (closest: " + near.map(\.closestDescription).joined(separator: "; ") + ")"
    }

    /// Lazy, injectable and partial properties of Lua classes that nothing can serve.
    func checkLuaProperties(_ report: [SpellRow]) {
        let classes = host.luaClasses
        for row in report where row.isInjected {
            let key = row.key
            let container = module.container(named: row.class, object: nil)
            if row.kind == "partial" {
                let type = row.type ?? key.name
                if !hasTemplate(for: type) {
                    add(.error,
                        "\(row.class).\(row.property): no template for partial \(type) (no bm.partial and no \(module.partialPath(for: type) ?? "partials/\(type).lua"))",
                        at: row.source)
                }
                continue
            }
            if registry.initializerEntry(for: key, in: container) != nil || row.optional { continue }
            if row.kind == "lazy", let type = row.type, classes[type] != nil { continue }
            let fallback = row.kind == "lazy" ? " and no Lua class \(key.name) to construct" : ""
            add(unservedSeverity, "\(row.class).\(row.property): no initializer for \(key.name) in \(row.class)\(fallback)"
                + closest(to: key) + unservedHint, at: row.source)
        }
    }

    /// A resolver decides at run time what it serves: with one registered,
    /// a property no initializer serves is only a warning.
    private var unservedSeverity: ScriptProblem.Severity { registry.hasResolvers ? .warning : .error }
    private var unservedHint: String { registry.hasResolvers ? " (unless a bm.resolver serves it)" : "" }

    /// Whether a partial of `type` has a template: `bm.partial`, a file in
    /// `partials/`, or the app's Swift template providers.
    func hasTemplate(for type: String) -> Bool {
        if registry.hasTemplateProvider(specificallyFor: SpellTypeKey(name: type)) { return true }
        if swiftTemplatesForEveryType || swiftTemplateTypes.contains(type) { return true }
        if let file = module.partialPath(for: type), FileManager.default.fileExists(atPath: file) { return true }
        return false
    }

    /// The app's Swift containers' properties that nothing can serve.
    func checkSwiftContainers() {
        for container in manifest?.containers ?? [] {
            let descriptor = ContainerDescriptor(
                object: nil, key: SpellTypeKey(name: container.name), ancestry: container.superclasses.map { SpellTypeKey(name: $0) })
            for property in container.properties {
                let key = property.typeKey
                let label = "\(container.name).\(property.name)"
                switch property.spell {
                case .partial:
                    let type = property.type ?? key.name
                    if !hasTemplate(for: type) {
                        add(.error,
                            "\(label): no template for partial \(type) (no bm.partial, no \(module.partialPath(for: type) ?? "partials/\(type).lua") and no Swift template provider)",
                            at: container.source)
                    }
                case .injectable where !property.optional, .provider where !property.optional:
                    if registry.initializerEntry(for: key, in: descriptor) == nil {
                        add(unservedSeverity, "\(label): no initializer for \(key.name) in \(container.name)" + closest(to: key) + unservedHint,
                            at: container.source)
                    }
                case .lazy where !property.optional && property.defaultConstructible != true:
                    if registry.initializerEntry(for: key, in: descriptor) == nil {
                        add(unservedSeverity,
                            "\(label): no initializer for \(key.name) in \(container.name), and \(key.name) cannot be default-constructed"
                                + closest(to: key) + unservedHint,
                            at: container.source)
                    }
                default:
                    continue
                }
            }
        }
    }

    /// Initializers for a container that has no property they could serve,
    /// or (with a manifest, which lists every container) that nobody declares.
    func checkInitializerContainers(_ containers: [String: KnownContainer]) {
        for entry in scriptEntries([.initializer, .singleton]) {
            guard let name = entry.container.key?.name, let type = entry.type else { continue }
            let typeField = type.protocols == nil ? "type" : "protocols"
            guard let container = containers[name] else {
                if manifest != nil {
                    add(.warning,
                        "bm.initializer for \(type.name) names container \(name), which \(declarers)"
                            + ClosestNames.suffix(for: name, in: containers.keys),
                        at: entry.source, field: "container")
                }
                continue
            }
            let served = container.properties.filter { ["lazy", "injectable", "provider"].contains($0.kind) }
            if !served.contains(where: { $0.key == type }) {
                let near = served.first { Set($0.key.protocols ?? [$0.key.name]) == Set(type.protocols ?? [type.name]) }
                    ?? ClosestNames.closest(to: type.name, in: served.map(\.key.name)).first.flatMap { best in
                        served.first { $0.key.name == best }
                    }
                add(.warning,
                    "bm.initializer for \(type.name) in \(name): \(name) has no lazy or injectable property of type \(type.name)"
                        + (near.map { " (closest: \($0.name), declared as \($0.key.name))" } ?? ""),
                    at: entry.source, field: typeField)
            }
        }
    }

    /// A class name declared twice: the later declaration replaces the first.
    func checkClassDeclarations() {
        var first: [String: String] = [:]
        for (name, source) in module.classDeclarations {
            if let earlier = first[name] {
                add(.error, "bm.class: a class named \(name) is already declared at \(earlier); this declaration replaces it",
                    at: source)
            } else {
                first[name] = source
            }
        }
    }
}
