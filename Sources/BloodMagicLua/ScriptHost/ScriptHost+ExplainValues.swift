@_spi(BloodMagicInternals) import BloodMagic

// `bmlua explain` for a struct the app declared with `declare(value:)`:
// its `@Resolved` properties and what serves each. A struct resolves with
// no sender when it is made (see `Resolved`), so each property is explained
// as a resolution without a container object, under the struct's name
// (registrations for that container name apply when the property says
// `@Resolved(in: CheckoutForm.self)`).

/// How the `@Resolved` properties of a struct would be served.
public struct ValueExplanation: Sendable, CustomStringConvertible {
    /// One `@Resolved` property and what serves it.
    public struct Property: Sendable {
        /// The property, as the manifest describes it.
        public let property: AppManifest.ContainerProperty
        /// The registry's explanation of its type, in the struct.
        public let explanation: ResolutionExplanation
        /// When no registration of this registry serves it: the app's Swift
        /// registration that would, from the manifest (`bmlua explain
        /// --manifest` has the scripts' registrations only).
        public let swiftRegistration: AppManifest.Registration?

        /// One line: the property, its type and what serves it.
        public var summary: String {
            let head = "\(property.name): \(property.swiftType)"
            if let winner = explanation.winner {
                return "\(head) <- the \(winner.kind)\(winner.scopeNote) at \(winner.source)"
            }
            if let swiftRegistration {
                return "\(head) <- the app's Swift \(swiftRegistration.kind) at \(swiftRegistration.source)"
            }
            if let failure = explanation.failure { return "\(head) <- fails: \(failure)" }
            return property.optional ? "\(head) <- nothing: reads nil" : "\(head) <- nothing serves it: making the struct traps"
        }
    }

    /// The struct's registry name.
    public let name: String
    /// Where the app declared it (`Module/File.swift:12`).
    public let source: String?
    /// Its `@Resolved` properties, by name.
    public let properties: [Property]

    public var description: String {
        var lines = ["\(name) (a struct\(source.map { " declared at \($0)" } ?? "")): its @Resolved properties resolve "
            + "when it is made, with no container object"]
        if properties.isEmpty { lines.append("  @Resolved properties: none") }
        for property in properties { lines.append("  " + property.summary) }
        return lines.joined(separator: "\n")
    }
}

extension ScriptHost {
    /// Explains the `@Resolved` properties of the struct named `name`, as
    /// the app declared it (``declare(value:fileID:line:)``) or as
    /// `manifest` describes it; nil when neither names a container by that
    /// name with `@Resolved` properties.
    /// O(properties × one explanation).
    public func explain(value name: String, manifest: AppManifest? = nil) -> ValueExplanation? {
        let declared = manifestRecords.withLock { $0.containers[name] }
        guard let container = declared ?? manifest?.containers.first(where: { $0.name == name }),
              container.properties.contains(where: { $0.spell == .resolved })
        else { return nil }
        let descriptor = ContainerDescriptor(object: nil, key: SpellTypeKey(name: name), ancestry: [])
        let properties = container.properties.filter { $0.spell == .resolved }.map { property in
            let explanation = registry.explain(property.typeKey, in: descriptor, property: nil, name: property.named)
            let swift = explanation.winner == nil
                ? manifest?.registrations.last { registration in
                    ["initializer", "singleton"].contains(registration.kind) && registration.typeKey == property.typeKey
                        && registration.named == property.named && registration.arguments == nil
                        && (registration.container == nil || registration.container == name)
                }
                : nil
            return ValueExplanation.Property(property: property, explanation: explanation, swiftRegistration: swift)
        }
        return ValueExplanation(name: name, source: container.source, properties: properties)
    }
}
