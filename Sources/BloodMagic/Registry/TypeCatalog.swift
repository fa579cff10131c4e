/// The Swift types a registry knows, by every name a script may use for
/// them: the short name (`Message`), the qualified name (`Inbox.Message`),
/// the module-qualified name (`App.Inbox.Message`) and any name a host
/// exposed the type under.
///
/// A registry learns a type when it is registered for (as property type or
/// container), looked up by a Swift property, or exposed to scripts. A
/// name then refers to the types listed under it: one type, or several
/// (`Message` once both `Inbox.Message` and `Outbox.Message` are known), in
/// which case using the name is an error listing the candidates.
struct TypeCatalog {
    /// Name → the concrete Swift types it may refer to.
    private var types: [String: [SwiftTypeNames]] = [:]
    /// Name → the Swift protocols it may refer to.
    private var protocols: [String: [SwiftTypeNames]] = [:]
    /// Types already noted under all their own names.
    private var noted: Set<ObjectIdentifier> = []

    /// Whether no Swift type is noted (names then match only equal names).
    var isEmpty: Bool { types.isEmpty && protocols.isEmpty }

    /// Notes the Swift type of `key` (nothing for a key made from a name)
    /// under its names and `alias`. Returns true when a name that referred
    /// to one type now refers to several: lookups made before may have
    /// matched it, so cached answers must go.
    mutating func note(_ key: SpellTypeKey, alias: String? = nil) -> Bool {
        guard let identity = key.identity, let names = key.swiftNames else { return false }
        var madeAmbiguous = false
        if noted.insert(identity).inserted {
            if let parts = names.protocols {
                for part in parts {
                    for spelling in part.spellings { madeAmbiguous = add(part, as: spelling, to: &protocols) || madeAmbiguous }
                }
            } else {
                for spelling in names.spellings { madeAmbiguous = add(names, as: spelling, to: &types) || madeAmbiguous }
            }
        }
        if let alias, !alias.isEmpty, names.protocols == nil {
            madeAmbiguous = add(names, as: alias, to: &types) || madeAmbiguous
        }
        return madeAmbiguous
    }

    private func add(_ names: SwiftTypeNames, as spelling: String, to table: inout [String: [SwiftTypeNames]]) -> Bool {
        var list = table[spelling] ?? []
        guard !list.contains(where: { $0.identity == names.identity }) else { return false }
        list.append(names)
        table[spelling] = list
        return list.count == 2
    }

    /// The types `name` may refer to, by their distinct display names, when
    /// it refers to more than one; nil when it is unambiguous or unknown.
    /// For a protocol set, the first ambiguous protocol name is reported.
    func ambiguity(of key: SpellTypeKey) -> TypeAmbiguity? {
        guard key.identity == nil else { return nil }
        switch key.shape {
        case .concrete(let name):
            return ambiguity(name, in: types)
        case .existential(let names):
            for name in names {
                if let found = ambiguity(name, in: protocols) { return found }
            }
            return nil
        }
    }

    private func ambiguity(_ name: String, in table: [String: [SwiftTypeNames]]) -> TypeAmbiguity? {
        guard let list = table[name], list.count > 1 else { return nil }
        return TypeAmbiguity(name: name, candidates: TypeCatalog.displayNames(list))
    }

    /// Whether a Swift type is known by `name` (for tools).
    func knowsType(named name: String) -> Bool { types[name] != nil }

    /// Whether every name of a protocol set is a known Swift protocol's (for tools).
    func knowsProtocols(_ names: [String]) -> Bool { !names.isEmpty && names.allSatisfy { protocols[$0] != nil } }

    /// Qualified names, or module-qualified ones where qualified names repeat.
    static func displayNames(_ list: [SwiftTypeNames]) -> [String] {
        let qualified = list.map(\.qualified)
        return list.map { names in
            qualified.filter { $0 == names.qualified }.count > 1 ? names.moduleQualified : names.qualified
        }.sorted()
    }

    /// How a registration's key fits a wanted key.
    func match(_ registered: SpellTypeKey, _ wanted: SpellTypeKey) -> TypeMatch {
        if registered == wanted { return .exact }
        if registered.identity != nil && wanted.identity != nil { return .none }
        switch (registered.shape, wanted.shape) {
        case (.concrete(let first), .concrete(let second)):
            if registered.identity == nil && wanted.identity == nil {
                // Two names: the same when both name one and the same type.
                guard let a = types[first], a.count == 1, let b = types[second], b.count == 1,
                      a[0].identity == b[0].identity else { return .none }
                return .byName
            }
            let (name, swift) = registered.identity == nil ? (first, wanted) : (second, registered)
            guard let list = types[name], let identity = swift.swiftNames?.identity,
                  list.contains(where: { $0.identity == identity }) else { return .none }
            if list.count == 1 { return .byName }
            return .ambiguous(TypeAmbiguity(name: name, candidates: TypeCatalog.displayNames(list)))
        case (.existential(let first), .existential(let second)):
            if registered.identity == nil && wanted.identity == nil {
                return Set(first.map(protocolIdentity)) == Set(second.map(protocolIdentity)) ? .byName : .none
            }
            let (names, swift) = registered.identity == nil ? (first, wanted) : (second, registered)
            guard let parts = swift.swiftNames?.protocols, parts.count == names.count else { return .none }
            let wantedIdentities = Set(parts.map(\.identity))
            var covered: Set<String> = []
            var ambiguity: TypeAmbiguity?
            for name in names {
                guard let list = protocols[name] else { return .none }
                let hits = list.filter { wantedIdentities.contains($0.identity) }
                guard !hits.isEmpty else { return .none }
                covered.formUnion(hits.map(\.identity))
                if list.count > 1, ambiguity == nil {
                    ambiguity = TypeAmbiguity(name: name, candidates: TypeCatalog.displayNames(list))
                }
            }
            guard covered == wantedIdentities else { return .none }
            return ambiguity.map(TypeMatch.ambiguous) ?? .byName
        default:
            return .none
        }
    }

    /// A protocol name as the identity of the one protocol it names, else itself.
    private func protocolIdentity(_ name: String) -> String {
        if let list = protocols[name], list.count == 1 { return "swift:" + list[0].identity }
        return "name:" + name
    }
}

/// How a registered key fits a wanted key (see ``TypeCatalog/match(_:_:)``).
enum TypeMatch {
    /// Not at all.
    case none
    /// The same key.
    case exact
    /// A name and the one Swift type it refers to.
    case byName
    /// A name that refers to the wanted type and to others.
    case ambiguous(TypeAmbiguity)

    /// Whether the keys fit (ambiguously or not).
    var fits: Bool {
        if case .none = self { return false }
        return true
    }

    /// Whether the keys fit without ambiguity.
    var isUnambiguous: Bool {
        switch self {
        case .exact, .byName: return true
        case .none, .ambiguous: return false
        }
    }
}

/// A name that refers to several Swift types.
struct TypeAmbiguity: Sendable, Equatable {
    /// The name used.
    let name: String
    /// The types it may refer to, by their qualified names.
    let candidates: [String]
}
