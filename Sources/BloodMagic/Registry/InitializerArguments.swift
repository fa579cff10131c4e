/// The arguments an initializer takes besides the sender (see
/// Registry+Arguments): what they are, for messages and checks, and the
/// initializer that takes them.
final class InitializerArguments: Sendable {
    /// How the arguments are shown: their Swift types (`Int`), or the
    /// names a script gave them (`id`).
    let names: [String]
    /// The Swift types, for a registration made in Swift (a resolution must
    /// give exactly these); nil for a script's, which takes any values.
    let types: [ObjectIdentifier]?
    /// Makes the value for a sender and the arguments (already checked
    /// against ``names``' count and ``types``).
    let make: @Sendable (AnyObject, [Any]) throws -> Any

    init(names: [String], types: [ObjectIdentifier]?, make: @escaping @Sendable (AnyObject, [Any]) throws -> Any) {
        self.names = names
        self.types = types
        self.make = make
    }

    /// The arguments as messages list them: "(Int, String)".
    static func listed(_ names: [String]) -> String {
        "(" + names.joined(separator: ", ") + ")"
    }
}
