import Foundation

// `bmlua check`: a Swift container's factory property (`@Injectable var
// makeDetail: (Int, Int) throws -> DetailModel`, served by a factory the app
// registered) whose calls a script's initializer would refuse, because it
// takes another number of arguments. Found from the manifest's property
// type and the script registration that wins for the container.

extension ScriptCheckRun {
    /// A factory property whose script initializer takes another count of
    /// arguments: an error at the initializer's line, naming both sides.
    /// O(properties × one lookup).
    func checkFactoryArguments() {
        for container in manifest?.containers ?? [] {
            let descriptor = ContainerDescriptor(
                object: nil, key: SpellTypeKey(name: container.name), ancestry: container.superclasses.map { SpellTypeKey(name: $0) })
            for property in container.properties where [.lazy, .injectable, .provider].contains(property.spell) {
                guard let factory = FactoryTypeShape(property.swiftType),
                      registry.initializerEntry(for: property.typeKey, in: descriptor) != nil else { continue }
                let made = SpellTypeKey(name: factory.result)
                guard let entry = registry.initializerEntry(for: made, in: descriptor), module.madeRegistration(entry.handle)
                else { continue }
                let takes = entry.arguments ?? []
                guard takes.count != factory.arguments.count else { continue }
                let taking = takes.isEmpty ? "takes no arguments" : "takes arguments (" + takes.joined(separator: ", ") + ")"
                add(.error,
                    "the initializer for \(made.name) \(taking), but \(container.name).\(property.name), its factory "
                        + "\(property.swiftType), calls it with (\(factory.arguments.joined(separator: ", ")))",
                    at: entry.source)
            }
        }
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
