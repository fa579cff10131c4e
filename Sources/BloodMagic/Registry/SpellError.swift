/// Everything that can go wrong while casting a spell, with messages that
/// name the property, the container, the type, the key or the file involved.
public enum SpellError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An @Injectable (or a registry lookup) found no initializer.
    /// `closest` lists registrations that came close, as
    /// "RequestManager in UsersViewController, file.swift:12".
    case noInitializer(property: String, container: String, type: String, closest: [String])
    /// A @Lazy property has no initializer and its type cannot be default-constructed.
    case notConstructible(property: String, container: String, type: String)
    /// An initializer returned a value of the wrong type.
    case wrongValueType(property: String, container: String, expected: String, actual: String, source: String)
    /// A resolver (force injection) answered with a value of the wrong type.
    case wrongResolvedType(property: String, container: String, expected: String, actual: String, source: String)
    /// An initializer registered with a typed sender (an instance of the
    /// container) was asked to serve a static property, which has none.
    case staticSender(type: String, container: String, source: String)
    /// An initializer needed, directly or through others, the property being
    /// resolved. `chain` is like ["ViewController.loader", "ResourceLoader.session", "ViewController.loader"].
    case dependencyCycle(chain: [String])
    /// A @Final property was assigned a second time.
    case finalAlreadySet(property: String, container: String, oldValue: String, newValue: String)
    /// A non-optional @Final property was read before its first assignment.
    case finalNotSet(property: String, container: String)
    /// A non-optional @Preference has no stored value and no default.
    case preferenceMissing(property: String, container: String, key: String)
    /// A stored preference could not be read as the property's type.
    case preferenceTypeMismatch(property: String, container: String, key: String, expected: String, found: String)
    /// A preference value could not be encoded for the store.
    case preferenceEncodingFailed(key: String, type: String, reason: String)
    /// A @Partial found no template; `lookedFor` names the files tried.
    case templateMissing(property: String, container: String, type: String, lookedFor: [String])
    /// A template exists but could not be turned into an instance.
    case templateInvalid(type: String, file: String, reason: String)
    /// A named custom spell is not registered.
    case unknownSpell(name: String)
    /// The preference key generator failed or made an unusable key.
    case preferenceKeyInvalid(property: String, container: String, reason: String)
    /// A resolution went deeper than `limit` nested steps (or than the
    /// thread's stack allows) without repeating itself: `chain` lists the
    /// steps in progress, outermost first. (One that keeps repeating the
    /// same steps is reported as `dependencyCycle`.)
    case resolutionTooDeep(chain: [String], limit: Int)
    /// An initializer gave nil for a property that is not Optional.
    /// `source` is where the initializer was registered ("file:line").
    case initializerReturnedNil(property: String, container: String, type: String, source: String)
    /// A type name used by a script (or a name-keyed registration) refers
    /// to several Swift types; `candidates` are their qualified names.
    /// `source`, when known, is where the name was used ("file:line").
    case ambiguousTypeName(name: String, candidates: [String], source: String?)
    /// A preference override's default (`bm.preference { default = ... }`,
    /// ``PreferenceOverride/defaultValue``) is not a value of the property's
    /// type. `source` is where the override was registered, when known.
    case preferenceDefaultTypeMismatch(
        property: String, container: String, key: String, expected: String, found: String, source: String?)
    /// A read had found an initializer for `type` (registered at `source`,
    /// "file:line") just as the script host that registered it was
    /// unloaded: the read fails rather than run what was removed.
    case initializerUnloaded(type: String, source: String)
    /// A property (or resolution) asked for the registrations of `type`
    /// under `name` (see ``SpellName``), and none is registered under it:
    /// `known` lists the names that are, in registration order.
    case unknownName(property: String, container: String, type: String, name: String, known: [String])
    /// A resolution gave an initializer arguments that do not match what it
    /// takes (their count or types): `expected` as registered (Swift types,
    /// or a script's argument names), `given` the types given.
    case argumentMismatch(type: String, source: String, expected: [String], given: [String])
    /// A synchronous read of `container.property` found an `async`
    /// registration of `type` (registered at `source`) whose value is not
    /// made yet: read it with `await` (``Registry/resolve(_:isolation:)``,
    /// ``ResolvingProjection/asyncValue(isolation:)``), or make it at start-up with
    /// ``Registry/prepare(isolation:)``.
    case asyncValueNotReady(property: String, container: String, type: String, source: String)
    /// A synchronous read of `container.property` off `actor` needed the
    /// registration of `type` (registered at `source`) isolated to that
    /// global actor: read it from the actor, or with `await`.
    case isolatedInitializer(property: String, container: String, type: String, actor: String, source: String)

    /// The human message.
    public var description: String {
        switch self {
        case let .noInitializer(property, container, type, closest):
            let near = closest.isEmpty ? "no registrations for \(type)" : "closest: " + closest.joined(separator: "; ")
            return "\(container).\(property): no initializer for \(type) in \(container) (\(near))"
        case let .notConstructible(property, container, type):
            return "\(container).\(property): no initializer for \(type) in \(container), and \(type) cannot be default-constructed (conform it to DefaultConstructible or register an initializer)"
        case let .wrongValueType(property, container, expected, actual, source):
            return "\(container).\(property): the initializer registered at \(source) returned \(actual), expected \(expected)"
        case let .wrongResolvedType(property, container, expected, actual, source):
            return "\(container).\(property): the resolver registered at \(source) returned \(actual), expected \(expected)"
        case let .staticSender(type, container, source):
            return "the initializer for \(type) registered at \(source) takes a \(container) instance as its sender and cannot serve a static property of \(container) (register one whose sender is any object, e.g. register(_:) or registerInitializer(type:container:))"
        case let .dependencyCycle(chain):
            return "dependency cycle: " + chain.joined(separator: " -> ")
        case let .finalAlreadySet(property, container, oldValue, newValue):
            return "\(container).\(property) is @Final and already set to \(oldValue); cannot assign \(newValue)"
        case let .finalNotSet(property, container):
            return "\(container).\(property) is @Final and was read before its first assignment"
        case let .preferenceMissing(property, container, key):
            return "\(container).\(property): no stored preference for key \"\(key)\" and no default value"
        case let .preferenceTypeMismatch(property, container, key, expected, found):
            return "\(container).\(property): preference \"\(key)\" holds \(found), expected \(expected)"
        case let .preferenceEncodingFailed(key, type, reason):
            return "preference \"\(key)\": cannot store \(type): \(reason)"
        case let .templateMissing(property, container, type, lookedFor):
            let files = lookedFor.isEmpty ? "no template provider is registered" : "looked for " + lookedFor.joined(separator: ", ")
            return "\(container).\(property): no template for \(type) (\(files))"
        case let .templateInvalid(type, file, reason):
            return "template \(file) for \(type) is invalid: \(reason)"
        case let .unknownSpell(name):
            return "no custom spell named \"\(name)\" is registered"
        case let .preferenceKeyInvalid(property, container, reason):
            return "\(container).\(property): no preference key: \(reason)"
        case let .resolutionTooDeep(chain, limit):
            return "resolution deeper than \(limit) nested steps (a runaway recursion through initializers?): "
                + SpellError.abbreviated(chain).joined(separator: " -> ")
        case let .initializerReturnedNil(property, container, type, source):
            return "\(container).\(property): the initializer registered at \(source) returned nil, but the property is a non-optional \(type) (return a value, or declare the property optional)"
        case let .ambiguousTypeName(name, candidates, source):
            let listed = candidates.count == 2 ? candidates.joined(separator: " or ") : candidates.joined(separator: ", ")
            let used = source.map { " (used at \($0))" } ?? ""
            return "type name \"\(name)\"\(used) is ambiguous: it may mean \(listed); use a qualified name such as \"\(candidates.first ?? name)\""
        case let .preferenceDefaultTypeMismatch(property, container, key, expected, found, source):
            let at = source.map { " set at \($0)" } ?? ""
            return "\(container).\(property): the default for preference \"\(key)\"\(at) is a \(found), expected \(expected)"
        case let .initializerUnloaded(type, source):
            return "\(source): the initializer for \(type) was unloaded with its script host"
        case let .unknownName(property, container, type, name, known):
            let names = known.isEmpty
                ? "no names are registered for \(type)"
                : "names registered for \(type): " + known.map { "\"\($0)\"" }.joined(separator: ", ")
            return "\(container).\(property): no initializer for \(type) named \"\(name)\" in \(container) (\(names))"
        case let .argumentMismatch(type, source, expected, given):
            let takes = expected.isEmpty ? "takes no arguments" : "takes arguments (\(expected.joined(separator: ", ")))"
            let with = given.isEmpty
                ? "none (resolve it with arguments, or declare the property as its factory, a function of them)"
                : "(\(given.joined(separator: ", ")))"
            return "\(source): the initializer for \(type) \(takes), but it was resolved with \(with)"
        case let .asyncValueNotReady(property, container, type, source):
            let (read, awaited) = container == "(none)"
                ? (type, "registry.resolve(\(type).self)")
                : ("\(container).\(property)", "$\(property).asyncValue()")
            return "\(read): \(type) is registered with an async initializer at \(source) and is not made yet; "
                + "a synchronous read cannot wait for it: read it with `try await \(awaited)`, "
                + "or make it at start-up with `try await registry.prepare()`"
        case let .isolatedInitializer(property, container, type, actor, source):
            return "\(container).\(property): the initializer for \(type) registered at \(source) is isolated to \(actor), "
                + "and this synchronous read is not on \(actor): read it on \(actor), or with `try await`"
        }
    }
}

extension SpellError {
    /// A long chain with its middle elided: the first 4 and the last 12 steps.
    static func abbreviated(_ chain: [String]) -> [String] {
        guard chain.count > 20 else { return chain }
        return Array(chain.prefix(4)) + ["… \(chain.count - 16) more …"] + Array(chain.suffix(12))
    }
}

/// Renders a value for an error message: strings quoted, nil as `nil`.
func spellDescribe(_ value: Any) -> String {
    if let optional = value as? any OptionalProtocol, optional.isNil { return "nil" }
    let unwrapped = (value as? any OptionalProtocol)?.wrappedAny ?? value
    if let text = unwrapped as? String { return "\"\(text)\"" }
    return String(describing: unwrapped)
}

/// Lets the spells see through `Optional` without knowing its Wrapped type.
@usableFromInline
package protocol OptionalProtocol {
    /// The `Wrapped` type.
    static var wrappedType: Any.Type { get }
    /// `Optional.none` of this type.
    static var nilValue: Self { get }
    /// Whether this value is nil.
    var isNil: Bool { get }
    /// The wrapped value, if any, as `Any`.
    var wrappedAny: Any? { get }
    /// Wraps `value` if it is a `Wrapped`.
    static func wrapping(_ value: Any) -> Self?
}

extension Optional: OptionalProtocol {
    /// The `Wrapped` type.
    @usableFromInline package static var wrappedType: Any.Type { Wrapped.self }
    /// `Optional.none`.
    @usableFromInline package static var nilValue: Optional<Wrapped> { .none }
    /// Whether this value is nil.
    @usableFromInline package var isNil: Bool { self == nil }
    /// The wrapped value as `Any`.
    @usableFromInline package var wrappedAny: Any? { self.map { $0 as Any } }
    /// Wraps `value` if it is a `Wrapped`.
    @usableFromInline package static func wrapping(_ value: Any) -> Optional<Wrapped>? {
        if let wrapped = value as? Wrapped { return .some(wrapped) }
        return nil
    }
}
