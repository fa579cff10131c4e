/// What a registry entry is.
public enum SpellEntryKind: String, Sendable, CustomStringConvertible {
    /// An initializer with instance scope.
    case initializer
    /// An initializer with singleton scope.
    case singleton
    /// A template provider for @Partial.
    case partialTemplate
    /// A hook run after a property is injected.
    case hook
    /// An override of a @Preference's key, default or store.
    case preferenceOverride
    /// A named custom spell.
    case customSpell
    /// A resolver consulted when no initializer serves a property (force injection).
    case resolver
    /// The function that makes @Preference keys from container and property.
    case preferenceKeys
    /// A decorator of a type's values (see ``Registry/decorate(_:fileID:line:_:)``).
    case decorator

    /// The kind's name.
    public var description: String { rawValue }
}

/// The handle of one registration, used to remove it.
public struct SpellHandle: Hashable, Sendable, CustomStringConvertible {
    /// A number unique within the registry that made it, increasing with time.
    public let id: UInt64

    /// "#<id>".
    public var description: String { "#\(id)" }
}

/// One registration as listed for tools (`Registry.entries`).
public struct SpellEntry: Sendable, CustomStringConvertible {
    /// The handle that removes this registration.
    public let handle: SpellHandle
    /// What the registration is.
    public let kind: SpellEntryKind
    /// The property type it serves, when it has one.
    public let type: SpellTypeKey?
    /// The containers it applies to.
    public let container: ContainerMatch
    /// The property name it is keyed by (hooks, preference overrides) or the
    /// spell name (custom spells); nil for registry-wide ones.
    public let property: String?
    /// The scope, for initializers.
    public let scope: SpellScope?
    /// Where it was registered: "File.swift:12" or a script location.
    public let source: String
    /// The initializer's name (see ``SpellName``), nil for an unnamed one.
    public internal(set) var name: String? = nil
    /// For a forwarding registration: the registration whose value it
    /// serves (see ``Registry/forward(_:to:fileID:line:)``).
    public internal(set) var forwardsTo: SpellHandle? = nil
    /// For a forwarding registration: the type and place of the
    /// registration it forwards to ("SQLStore registered at App.swift:3").
    public internal(set) var forwardedRegistration: String? = nil
    /// For an initializer that takes arguments besides the sender: their
    /// Swift types, or the names a script gave them.
    public internal(set) var arguments: [String]? = nil
    /// Whether its initializer is `async` (``Registry/registerAsync(_:scope:fileID:line:initializer:)``):
    /// its value is read with `await` until it is made.
    public internal(set) var isAsync: Bool = false
    /// The global actor its initializer is isolated to ("MainActor"), if any.
    public internal(set) var isolation: String? = nil

    /// "initializer RequestManager in ViewController (instance) at File.swift:12".
    public var description: String {
        var parts = [kind.rawValue]
        if let type { parts.append(type.name) }
        if let name { parts.append("named \"\(name)\"") }
        if let arguments { parts.append("taking (\(arguments.joined(separator: ", ")))") }
        if let property { parts.append(kind == .customSpell ? "\"\(property)\"" : ".\(property)") }
        parts.append("in \(container)")
        if let scope { parts.append("(\(scope))") }
        if isAsync { parts.append("async") }
        if let isolation { parts.append("on \(isolation)") }
        if let forwardedRegistration { parts.append("forwarding to \(forwardedRegistration)") }
        parts.append("at \(source)")
        return parts.joined(separator: " ")
    }

    /// "RequestManager in UsersViewController, file.swift:4", the form used
    /// in "closest" lists of error messages.
    public var closestDescription: String {
        "\(type?.name ?? "?")\(name.map { " named \"\($0)\"" } ?? "") in \(container), \(source)"
    }
}

/// Something the registry noticed and chose for you, recorded so that a
/// choice is never silently random (for example two equally specific
/// registrations for the same type and container: the later wins).
public struct SpellDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// The human message.
    public let message: String
    /// The registrations involved, by handle.
    public let handles: [SpellHandle]

    /// The message.
    public var description: String { message }
}

/// The source location string for a Swift registration.
@inlinable
package func spellSource(_ fileID: String, _ line: Int) -> String {
    "\(fileID):\(line)"
}
