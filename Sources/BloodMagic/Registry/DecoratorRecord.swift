/// A registered decorator (see Registry+Decorators): it wraps or replaces
/// the values of a type after they are made.
struct DecoratorRecord: Sendable {
    let handle: SpellHandle
    /// The type whose values it decorates.
    let type: SpellTypeKey
    /// Where it was registered, "file:line".
    let source: String
    /// The value made, and the sender, to the value the property gets.
    let decorate: @Sendable (Any, AnyObject) throws -> Any

    var entry: SpellEntry {
        SpellEntry(handle: handle, kind: .decorator, type: type, container: .any, property: nil, scope: nil, source: source)
    }
}
