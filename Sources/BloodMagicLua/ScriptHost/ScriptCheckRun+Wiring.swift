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
        /// The registration name an injectable asks for (`name = ...`).
        var name: String?
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

    /// The spelled properties of every Lua class, by class name. The
    /// names are sorted here and the rows asked for a batch of classes per
    /// call: each call has the instruction budget of one step, so the
    /// report of 40,000 classes is not one step over it.
    func spellReport() throws -> [SpellRow] {
        guard let prelude = module.preludeTable else { throw LuaError(.usage, "the bm module is not installed") }
        let names = host.luaClasses.keys.sorted()
        var rows: [SpellRow] = []
        for start in stride(from: 0, to: names.count, by: Self.classesPerReportCall) {
            let batch = Array(names[start..<min(start + Self.classesPerReportCall, names.count)])
            rows += try call(prelude, "spell_report", results: 1, push: { lua in
                lua.push(batch)
                return 1
            }, read: { lua in try lua.decode([SpellRow].self, at: -1) })
        }
        return rows
    }

    /// Classes whose rows one call of the prelude's `spell_report` makes.
    static let classesPerReportCall = 256

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
        // Every container's property names by kind, gathered once (not once
        // per hook: that grew with hooks times properties).
        var anyContainer: [SpellEntryKind: (names: [String], set: Set<String>)] = [:]
        func propertyNames(for kind: SpellEntryKind) -> (names: [String], set: Set<String>) {
            if let known = anyContainer[kind] { return known }
            let names = containers.values.flatMap { $0.properties(for: kind) }.map(\.name)
            anyContainer[kind] = (names, Set(names))
            return (names, Set(names))
        }
        func suffix(_ name: String, _ candidates: some Collection<String>) -> String {
            closestName(to: name, in: candidates).map { " (closest: \($0))" } ?? ""
        }
        for entry in scriptEntries([.hook, .preferenceOverride]) {
            guard let property = entry.property else { continue }
            let what = entry.kind == .hook ? "bm.hook" : "bm.preference"
            let adjective = entry.kind == .hook ? "injected" : "preference"
            if let name = entry.container.key?.name {
                guard let container = containers[name] else {
                    let closest = suffix(name, containers.keys)
                    // Without the manifest, a name nothing comes close to
                    // may be the app's Swift container: not a finding.
                    if manifest == nil && closest.isEmpty {
                        uncheckedNames.insert(name)
                        continue
                    }
                    var message = "\(what) names container \(name), which \(declarers)" + closest
                    if manifest == nil { message += "; for a Swift container, give check the app's manifest" }
                    add(.warning, message, at: entry.source, field: "container")
                    continue
                }
                let candidates = container.properties(for: entry.kind)
                if !candidates.contains(where: { $0.name == property }) {
                    add(.warning,
                        "\(what) for \(name).\(property): \(name) declares no \(adjective) property '\(property)'"
                            + suffix(property, candidates.map(\.name)),
                        at: entry.source, field: "property")
                }
            } else {
                let candidates = propertyNames(for: entry.kind)
                if !candidates.set.contains(property) {
                    let who = manifest == nil ? "no Lua class declares" : "no Lua class or Swift container declares"
                    add(.warning,
                        "\(what) for property '\(property)': \(who) a spelled property of that name"
                            + suffix(property, candidates.names),
                        at: entry.source, field: "property")
                }
            }
        }
    }

    /// A named property's finding: nothing is registered under its name;
    /// the names that are, as the runtime error lists them. A resolver
    /// never serves a named property, so this is an error either way.
    private func unknownName(_ key: SpellTypeKey, _ name: String, in container: String) -> String {
        let known = registry.registeredNames(of: key)
        let listed = known.isEmpty
            ? "no names are registered for \(key.name)"
            : "names registered for \(key.name): " + known.map { "\"\($0)\"" }.joined(separator: ", ")
        return "no initializer for \(key.name) named \"\(name)\" in \(container) (\(listed))"
    }

    /// A property (which gives no arguments) served by an initializer that
    /// takes some: the read would fail with the mismatch.
    private func takesArguments(_ key: SpellTypeKey, _ arguments: [String], at source: String) -> String {
        "the initializer for \(key.name) registered at \(source) takes arguments (\(arguments.joined(separator: ", "))), "
            + "which a property cannot give (resolve it with arguments, or declare the property as its factory)"
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
            if let name = row.name {
                if row.optional || registry.initializerEntry(for: key, in: container, name: name) != nil { continue }
                add(.error, "\(row.class).\(row.property): " + unknownName(key, name, in: row.class), at: row.source)
                continue
            }
            if let entry = registry.initializerEntry(for: key, in: container), let arguments = entry.arguments {
                add(.error, "\(row.class).\(row.property): " + takesArguments(key, arguments, at: entry.source), at: row.source)
                continue
            }
            if registry.initializerEntry(for: key, in: container) != nil || row.optional { continue }
            if row.kind == "lazy", let type = row.type, classes[type] != nil { continue }
            if servedButForATypo(key, in: row.class) { continue }
            let fallback = row.kind == "lazy" ? " and no Lua class \(key.name) to construct" : ""
            reportUnserved(
                "\(row.class).\(row.property): no initializer for \(key.name) in \(row.class)\(fallback)" + closest(to: key),
                at: row.source, .init(container: row.class, property: row.property, key: key, kind: row.kind, isSwift: false))
        }
    }

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
                case .injectable where !property.optional && property.named != nil:
                    let name = property.named ?? ""
                    if registry.initializerEntry(for: key, in: descriptor, name: name) == nil {
                        add(.error, "\(label): " + unknownName(key, name, in: container.name), at: container.source)
                    }
                case .injectable where registry.initializerEntry(for: key, in: descriptor)?.arguments != nil:
                    let entry = registry.initializerEntry(for: key, in: descriptor)
                    add(.error, "\(label): " + takesArguments(key, entry?.arguments ?? [], at: entry?.source ?? "?"),
                        at: container.source)
                case .injectable where !property.optional:
                    if registry.initializerEntry(for: key, in: descriptor) == nil, !servedButForATypo(key, in: container.name) {
                        reportUnserved("\(label): no initializer for \(key.name) in \(container.name)" + closest(to: key),
                            at: container.source, .init(container: container.name, property: property.name, key: key, kind: "injectable", isSwift: true))
                    }
                case .resolved where registry.initializerEntry(for: key, in: descriptor)?.arguments != nil:
                    let entry = registry.initializerEntry(for: key, in: descriptor)
                    add(.error, "\(label): " + takesArguments(key, entry?.arguments ?? [], at: entry?.source ?? "?"),
                        at: container.source)
                case .resolved where !property.optional:
                    if registry.initializerEntry(for: key, in: descriptor) == nil, !servedButForATypo(key, in: container.name) {
                        reportUnserved("\(label): no initializer for \(key.name) in \(container.name)" + closest(to: key),
                            at: container.source, .init(container: container.name, property: property.name, key: key, kind: "resolved", isSwift: true))
                    }
                case .provider where !property.optional:
                    if registry.initializerEntry(for: key, in: descriptor) == nil, !servedButForATypo(key, in: container.name) {
                        reportUnserved("\(label): no initializer for \(key.name) in \(container.name)" + closest(to: key),
                            at: container.source, .init(container: container.name, property: property.name, key: key, kind: "provider", isSwift: true))
                    }
                case .lazy where !property.optional && property.defaultConstructible != true:
                    if registry.initializerEntry(for: key, in: descriptor) == nil, !servedButForATypo(key, in: container.name) {
                        reportUnserved(
                            "\(label): no initializer for \(key.name) in \(container.name), and \(key.name) cannot be default-constructed"
                                + closest(to: key),
                            at: container.source, .init(container: container.name, property: property.name, key: key, kind: "lazy", isSwift: true))
                    }
                case .custom:
                    guard let name = property.spellName, registry.namedSpellSource(name) == nil else { continue }
                    let known = registry.entries.filter { $0.kind == .customSpell }.compactMap(\.property)
                    add(.error,
                        "\(label): no spell named \"\(name)\" is registered for its RegisteredSpell(\"\(name)\") "
                            + "(define it with bm.define_spell { name = \"\(name)\", ... } or Registry.registerSpell(named:))"
                            + ClosestNames.suffix(for: name, in: known),
                        at: container.source)
                default:
                    continue
                }
            }
        }
    }

    /// A script initializer whose container nobody declares, and the
    /// declared container its name is closest to.
    struct ContainerTypo {
        var entry: SpellEntry
        var type: SpellTypeKey
        var closest: String?
    }

    /// The scripts' initializers that name a container nobody declares,
    /// with the closest declared name. The closest names are worked out
    /// only for these (each against every container: a finding's cost).
    func undeclaredContainers(_ containers: [String: KnownContainer]) -> [ContainerTypo] {
        var closestByName: [String: String?] = [:]
        return scriptEntries([.initializer, .singleton]).compactMap { entry in
            guard let name = entry.container.key?.name, let type = entry.type, containers[name] == nil else { return nil }
            if closestByName[name] == nil { closestByName[name] = .some(closestName(to: name, in: containers.keys)) }
            return ContainerTypo(entry: entry, type: type, closest: closestByName[name] ?? nil)
        }
    }

    /// The candidate closest to `name`, within the run's
    /// ``closestNameBudget`` (nil once it is spent).
    func closestName(to name: String, in candidates: some Collection<String>) -> String? {
        guard closestNameBudget >= candidates.count else { return nil }
        closestNameBudget -= candidates.count
        return ClosestNames.closest(to: name, in: candidates).first
    }

    /// Whether `property` (of type `key`) of `container` is left unserved
    /// only because an initializer for it misspells the container's name:
    /// that mistake is reported at the initializer, in its own file and
    /// line, not here.
    func servedButForATypo(_ key: SpellTypeKey, in container: String) -> Bool {
        !typoTargets.isEmpty && typoTargets.contains("\(key.name)|\(container)")
    }

    /// Initializers for a container that has no property they could serve,
    /// or that nobody declares: an error when the name is a misspelling of
    /// a declared container whose property of that type is then left
    /// unserved; else a warning with a manifest (which lists every
    /// container), or without one when a declared name is close.
    func checkInitializerContainers(_ containers: [String: KnownContainer]) {
        for typo in containerTypos {
            guard let name = typo.entry.container.key?.name else { continue }
            let closest = typo.closest.flatMap { containers[$0] }
            let stranded = closest.flatMap { container in
                container.properties.first { ["lazy", "injectable", "provider", "resolved"].contains($0.kind) && $0.key == typo.type && !$0.optional }
                    .flatMap { property in
                        registry.initializerEntry(for: typo.type, in: module.container(named: container.name, object: nil)) == nil
                            ? property : nil
                    }
            }
            var message = "bm.initializer for \(typo.type.name) names container \(name), which \(declarers)"
            if let closest, let stranded {
                message += " (closest: \(closest.name), whose \(stranded.name) nothing else serves)"
                add(.error, message, at: typo.entry.source, field: "container")
            } else if manifest == nil && typo.closest == nil {
                uncheckedNames.insert(name)
            } else {
                message += typo.closest.map { " (closest: \($0))" } ?? ""
                if manifest == nil { message += "; for a Swift container, give check the app's manifest" }
                add(.warning, message, at: typo.entry.source, field: "container")
            }
        }
        for entry in scriptEntries([.initializer, .singleton]) {
            guard let name = entry.container.key?.name, let type = entry.type else { continue }
            let typeField = type.protocols == nil ? "type" : "protocols"
            guard let container = containers[name] else { continue }
            let served = container.properties.filter { ["lazy", "injectable", "provider", "resolved"].contains($0.kind) }
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

extension ScriptCheckRun {
    /// Preference overrides of the app's Swift properties whose default is
    /// not of the property's type: at run time the read fails with the
    /// same message (``SpellError/preferenceDefaultTypeMismatch(property:container:key:expected:found:source:)``).
    /// The override in force is the one the property would use.
    func checkPreferenceDefaults() {
        for container in manifest?.containers ?? [] {
            let descriptor = ContainerDescriptor(
                object: nil, key: SpellTypeKey(name: container.name), ancestry: container.superclasses.map { SpellTypeKey(name: $0) })
            for property in container.properties where property.spell == .preference {
                guard let override = registry.preferenceOverride(container: descriptor, property: property.name),
                      let value = override.defaultValue,
                      let source = override.source,
                      Self.preferenceValue(value, fits: property.swiftType) == false
                else { continue }
                let expected = Self.unwrappedSpelling(property.swiftType)
                let error = SpellError.preferenceDefaultTypeMismatch(
                    property: property.name, container: container.name, key: override.key ?? property.key ?? property.name,
                    expected: expected, found: value.typeName, source: source)
                add(.error, error.description, at: source, field: "default")
            }
        }
    }

    /// `Optional<T>` spelled as `T`.
    static func unwrappedSpelling(_ spelling: String) -> String {
        spelling.hasPrefix("Optional<") && spelling.hasSuffix(">") ? String(spelling.dropFirst(9).dropLast()) : spelling
    }

    /// The Swift types a preference reads natively, by their spelling.
    /// (A switch, not a dictionary: metatypes of a non-`Sendable` protocol
    /// cannot be kept in a static.)
    private static func preferenceType(_ spelling: String) -> (any PreferenceRepresentable.Type)? {
        switch spelling {
        case "Bool": Bool.self
        case "Int": Int.self
        case "Double": Double.self
        case "String": String.self
        case "Data": Data.self
        case "Date": Date.self
        case "URL": URL.self
        default: nil
        }
    }

    /// Whether `value` reads as the Swift type spelled `spelling`, as the
    /// property reads its default (``PreferenceCoding/decode(_:as:)``);
    /// nil when the check cannot tell (a Codable type stored as JSON).
    /// Arrays and dictionaries are looked into element by element: linear
    /// in the value, which the script's memory budget bounded.
    static func preferenceValue(_ value: PreferenceValue, fits spelling: String) -> Bool? {
        let type = unwrappedSpelling(spelling)
        if let native = preferenceType(type) { return native.init(preferenceValue: value) != nil }
        if type.hasPrefix("Array<"), type.hasSuffix(">") {
            let element = String(type.dropFirst(6).dropLast())
            guard preferenceType(element) != nil else { return nil }
            guard case .array(let items) = value else { return false }
            return items.allSatisfy { preferenceValue($0, fits: element) != false }
        }
        if type.hasPrefix("Dictionary<String, "), type.hasSuffix(">") {
            let element = String(type.dropFirst(19).dropLast())
            guard preferenceType(element) != nil else { return nil }
            guard case .dictionary(let items) = value else { return false }
            return items.values.allSatisfy { preferenceValue($0, fits: element) != false }
        }
        return nil
    }
}
