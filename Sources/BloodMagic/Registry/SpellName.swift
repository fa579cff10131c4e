/// The name (qualifier) of a registration: two registrations of one type
/// under different names serve different properties, as Swinject's `name:`
/// and Factory's named containers do.
///
/// Typed by the value it names, so that a name is declared once, next to
/// its type, and the compiler checks every use:
///
/// ```swift
/// extension SpellName<Database> {
///     static var primary: Self { "primary" }
///     static var replica: Self { "replica" }
/// }
///
/// registry.register(Database.self, named: .primary) { _ in Database(url: primaryURL) }
///
/// final class Reports {
///     @Injectable(named: .primary) var writes: Database
///     @Injectable(named: .replica) var reads: Database
/// }
/// ```
///
/// `.primary` only type-checks where a `Database` is named: a `SpellName<Cache>`
/// property cannot be given it, and a misspelled name does not compile. A
/// string literal works too (`named: "primary"`), for one-off names and for
/// the names scripts use: the registry keys a registration by the name's
/// ``rawValue``, which is what a script writes (`name = "primary"`).
public struct SpellName<Value>: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name, as scripts and messages spell it.
    public let rawValue: String

    /// A name spelled `rawValue`.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// A name from a string literal.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The name in quotes, as messages show it.
    public var description: String { "\"\(rawValue)\"" }
}
