import Synchronization

/// The names one Swift type can go by, derived once per type and cached.
///
/// For `Inbox.Message` declared in module `App`:
/// - `short`: `Message` (`String(describing:)`),
/// - `qualified`: `Inbox.Message` (the nesting path without the module:
///   what messages show),
/// - `moduleQualified`: `App.Inbox.Message`,
/// - `identity`: `String(reflecting:)` as is, which also tells apart two
///   private types of the same name in different files.
///
/// For an existential (`any A & B`) the same four are kept per protocol.
final class SwiftTypeNames: Sendable {
    let short: String
    let qualified: String
    let moduleQualified: String
    let identity: String
    /// For an existential, its protocols' names (sorted by qualified name).
    let protocols: [SwiftTypeNames]?

    init(short: String, qualified: String, moduleQualified: String, identity: String, protocols: [SwiftTypeNames]? = nil) {
        self.short = short
        self.qualified = qualified
        self.moduleQualified = moduleQualified
        self.identity = identity
        self.protocols = protocols
    }

    /// Every name a script may use for this type (or protocol), shortest first.
    var spellings: [String] {
        var names = [short]
        if qualified != short { names.append(qualified) }
        if moduleQualified != qualified { names.append(moduleQualified) }
        return names
    }

    private static let cache = Lock<[ObjectIdentifier: SwiftTypeNames]>([:])

    /// The names of `type` (cached: deriving them parses the type's full name).
    static func of(_ type: Any.Type, existential: Bool) -> SwiftTypeNames {
        let id = ObjectIdentifier(type)
        if let hit = cache.withLock({ $0[id] }) { return hit }
        let names = derive(type, existential: existential)
        return cache.withLock { cache in
            if let raced = cache[id] { return raced }
            cache[id] = names
            return names
        }
    }

    private static func derive(_ type: Any.Type, existential: Bool) -> SwiftTypeNames {
        let reflecting = String(reflecting: type)
        let described = String(describing: type)
        guard existential else {
            let readable = withoutUnknownContexts(reflecting)
            return SwiftTypeNames(
                short: described, qualified: withoutModules(readable), moduleQualified: readable, identity: reflecting)
        }
        // `Mod.A & Mod.B` and `A & B`, in the same order.
        let full = reflecting.components(separatedBy: " & ")
        let short = described.components(separatedBy: " & ")
        var parts: [SwiftTypeNames] = []
        for (index, identity) in full.enumerated() {
            let readable = withoutUnknownContexts(identity)
            let qualified = withoutModules(readable)
            let shortName = index < short.count && full.count == short.count ? short[index] : lastComponent(qualified)
            parts.append(SwiftTypeNames(short: shortName, qualified: qualified, moduleQualified: readable, identity: identity))
        }
        parts.sort { $0.qualified < $1.qualified }
        return SwiftTypeNames(
            short: parts.map(\.short).joined(separator: " & "),
            qualified: parts.map(\.qualified).joined(separator: " & "),
            moduleQualified: parts.map(\.moduleQualified).joined(separator: " & "),
            identity: reflecting, protocols: parts)
    }

    /// `App.(unknown context at $1f2e).Hidden` → `App.Hidden` (private and
    /// local types).
    static func withoutUnknownContexts(_ name: String) -> String {
        var result = ""
        var rest = Substring(name)
        while let start = rest.range(of: "(unknown context at ") {
            result += rest[..<start.lowerBound]
            guard let close = rest[start.upperBound...].firstIndex(of: ")") else {
                rest = rest[start.lowerBound...]
                break
            }
            rest = rest[rest.index(after: close)...]
            if rest.first == "." { rest = rest.dropFirst() }
        }
        return result + rest
    }

    /// Drops the module in front of every type path:
    /// `Swift.Array<App.Inbox.Message>` → `Array<Inbox.Message>`.
    /// In a reflected name every path starts with its module, so the first
    /// component of each path (when more follow) is the module.
    static func withoutModules(_ name: String) -> String {
        let delimiters: Set<Character> = ["<", ">", "(", ")", "[", "]", ",", " ", ":", "&", "-", "?", "!"]
        var result = ""
        var index = name.startIndex
        var atPathStart = true
        while index < name.endIndex {
            let character = name[index]
            if delimiters.contains(character) {
                result.append(character)
                atPathStart = true
                index = name.index(after: index)
                continue
            }
            if atPathStart {
                // The identifier from here; drop it with its dot if a dot follows.
                var end = index
                while end < name.endIndex, !delimiters.contains(name[end]), name[end] != "." {
                    end = name.index(after: end)
                }
                if end < name.endIndex, name[end] == "." {
                    index = name.index(after: end)
                    atPathStart = false
                    continue
                }
            }
            atPathStart = false
            result.append(character)
            index = name.index(after: index)
        }
        return result
    }

    private static func lastComponent(_ name: String) -> String {
        name.split(separator: ".").last.map(String.init) ?? name
    }
}
