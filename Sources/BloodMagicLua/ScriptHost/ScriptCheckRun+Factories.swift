import Foundation

// `bmlua check`: a Swift container's factory property (`@Injectable var
// makeDetail: (Int, Int) throws -> DetailModel`, served by a factory the app
// registered) whose calls the initializer would refuse: a script's that
// takes another number of arguments or declares other Lua types, or one of
// the app's Swift registrations (from the manifest, which records their
// argument types) that takes another number or other types. Found from the
// manifest's property type and the registration that wins for the container.

extension ScriptCheckRun {
    /// A factory property whose initializer would refuse its calls: a
    /// script's that takes another count of arguments or declares a Lua type
    /// the factory's Swift argument does not cross as (`"id: string"` for an
    /// `Int`), or a Swift registration of the manifest that takes another
    /// count or other Swift types. An error at the initializer's line (the
    /// Swift registration's `Module/File.swift:line`), naming both sides.
    /// O(properties × (one lookup + arguments)).
    func checkFactoryArguments() {
        let exposed = Set((manifest?.types ?? []).compactMap(\.swiftType))
        for container in manifest?.containers ?? [] {
            let descriptor = ContainerDescriptor(
                object: nil, key: SpellTypeKey(name: container.name), ancestry: container.superclasses.map { SpellTypeKey(name: $0) })
            for property in container.properties where [.lazy, .injectable, .provider].contains(property.spell) {
                guard let factory = FactoryTypeShape(property.swiftType),
                      registry.initializerEntry(for: property.typeKey, in: descriptor) != nil else { continue }
                let made = SpellTypeKey(name: factory.result)
                guard let entry = registry.initializerEntry(for: made, in: descriptor) else { continue }
                let script = module.madeRegistration(entry.handle)
                // A Swift registration without arguments (the app's own
                // factory serves the property) is none of the check's business.
                guard script || entry.arguments != nil else { continue }
                let takes = entry.arguments ?? []
                let taking = takes.isEmpty ? "takes no arguments" : "takes arguments (" + takes.joined(separator: ", ") + ")"
                let factoryText = "\(container.name).\(property.name), its factory \(property.swiftType),"
                if takes.count != factory.arguments.count
                    || (!script && !zip(takes, factory.arguments).allSatisfy { Self.sameSwiftType($0, $1) }) {
                    add(.error,
                        "the initializer for \(made.name) \(taking), but \(factoryText) calls it with (\(factory.arguments.joined(separator: ", ")))",
                        at: entry.source)
                    continue
                }
                guard script else { continue }
                for (position, (declared, swiftType)) in zip(LuaArgumentDeclaration.parse(takes), factory.arguments).enumerated() {
                    guard let problem = Self.crossingProblem(declared, swiftType: swiftType, exposed: exposed) else { continue }
                    add(.error,
                        "the initializer for \(made.name) \(taking), but \(factoryText) gives argument #\(position + 1) "
                            + "(\(declared.name)) \(problem)",
                        at: entry.source)
                }
            }
        }
    }

    /// A script's initializer declaring an argument of an exposed class
    /// (`"user: User"`) that the manifest does not list: an error at the
    /// registration, with the closest exposed class's name (a misspelling
    /// never matches, so every call would fail). Only with a manifest.
    /// O(registrations × arguments), plus the closest-name ranking of a miss.
    func checkArgumentClasses() {
        guard let manifest else { return }
        let exposed = Set(manifest.types.map(\.name))
        for entry in registry.entries where entry.arguments != nil && module.madeRegistration(entry.handle) {
            let takes = entry.arguments ?? []
            for (position, declared) in LuaArgumentDeclaration.parse(takes).enumerated() {
                guard let className = declared.className, !exposed.contains(className) else { continue }
                add(.error,
                    "the initializer for \(entry.type?.name ?? "?") declares argument #\(position + 1) (\(declared.name)) "
                        + "as \(className), which is not a class the app exposes to Lua"
                        + ClosestNames.suffix(for: className, in: exposed),
                    at: entry.source)
            }
        }
    }

    /// Whether two spellings name the same Swift type (`Int`, `Swift.Int`).
    private static func sameSwiftType(_ a: String, _ b: String) -> Bool {
        func bare(_ name: String) -> Substring { name.split(separator: ".").last ?? Substring(name) }
        return a == b || bare(a) == bare(b)
    }

    /// Why a factory's argument of Swift type `swiftType` would not fit
    /// `declared` once it crossed into Lua ("an Int (a Lua integer),
    /// expected string"); nil when it fits, or when the check cannot tell
    /// (a type it does not know how crosses).
    private static func crossingProblem(
        _ declared: LuaArgumentDeclaration, swiftType: String, exposed: Set<String>
    ) -> String? {
        guard let kind = declared.kind, kind != .any else { return nil }
        if let className = declared.className {
            // A class the manifest does not list is checkArgumentClasses' finding.
            guard exposed.contains(className) else { return nil }
            // An exposed class: the factory must give that class (the
            // manifest does not say which classes are subclasses of which,
            // so another exposed class is the only sure mismatch).
            var bare = swiftType
            let optional = bare.hasSuffix("?")
            if optional { bare.removeLast() }
            let unqualified = String(bare.split(separator: ".").last ?? Substring(bare))
            if unqualified == className || bare == className {
                return optional && !declared.optional ? "\(swiftType) (a \(className) or nil), expected \(declared.expected)" : nil
            }
            if let lua = LuaArgumentDeclaration.luaType(ofSwift: swiftType) {
                return "\(swiftType) (a Lua \(lua.kind.rawValue)), expected \(declared.expected)"
            }
            return exposed.contains(bare) ? "\(swiftType) (another exposed class), expected \(declared.expected)" : nil
        }
        let crossing: (kind: LuaArgumentDeclaration.Kind, optional: Bool)
        if let known = LuaArgumentDeclaration.luaType(ofSwift: swiftType) {
            crossing = known
        } else {
            var bare = swiftType
            var optional = false
            if bare.hasSuffix("?") {
                bare.removeLast()
                optional = true
            }
            guard exposed.contains(bare) else { return nil }
            crossing = (.userdata, optional)
        }
        let fits = crossing.kind == kind || (kind == .number && crossing.kind == .integer)
        if fits && (!crossing.optional || declared.optional) { return nil }
        let lua = crossing.optional ? "a Lua \(crossing.kind.rawValue) or nil" : "a Lua \(crossing.kind.rawValue)"
        return "\(swiftType) (\(lua)), expected \(declared.expected)"
    }
}

/// The shape of a Swift function type's spelling, `(Int, String) throws ->
/// DetailModel`: its argument types and its result type; nil for any
/// other spelling. Brackets (`()`, `[]`, `<>`) nest, and `->` inside the
/// arguments (a closure argument) is skipped. Linear in the spelling's length.
struct FactoryTypeShape: Equatable {
    var arguments: [String]
    var result: String

    init?(_ spelling: String) {
        let text = Array(spelling.unicodeScalars)
        guard text.first == "(" else { return nil }
        var depth = 0
        var index = 0
        var start = 1
        var arguments: [String] = []
        var close: Int?
        while index < text.count {
            let scalar = text[index]
            if scalar == "-", index + 1 < text.count, text[index + 1] == ">" {
                index += 2
                continue
            }
            switch scalar {
            case "(", "[", "<":
                depth += 1
            case ")", "]", ">":
                depth -= 1
                if depth == 0 { close = index }
            case "," where depth == 1:
                arguments.append(Self.trimmed(text[start..<index]))
                start = index + 1
            default:
                break
            }
            if close != nil { break }
            index += 1
        }
        guard let close else { return nil }
        let last = Self.trimmed(text[start..<close])
        if !last.isEmpty || !arguments.isEmpty { arguments.append(last) }
        let rest = String(String.UnicodeScalarView(text[(close + 1)...]))
        var tail = Substring(rest)
        for prefix in [" async", " throws"] where tail.hasPrefix(prefix) { tail = tail.dropFirst(prefix.count) }
        guard tail.hasPrefix(" -> ") else { return nil }
        let result = String(tail.dropFirst(4))
        guard !result.isEmpty, !arguments.contains(where: \.isEmpty) else { return nil }
        self.arguments = arguments
        self.result = result
    }

    private static func trimmed(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(String.UnicodeScalarView(scalars)).trimmingCharacters(in: .whitespaces)
    }
}
