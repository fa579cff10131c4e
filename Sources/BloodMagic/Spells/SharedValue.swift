/// A static spell's value (the slot of a `StaticSpellCell`), made once and
/// shared, like a singleton, by every reader on every thread.
///
/// `@unchecked Sendable` invariant: the wrapper itself is immutable (`let`)
/// and the slot that holds it is protected by a `Lock`. The payload's own
/// thread safety is the registrant's documented promise (see
/// ``SpellScope/singleton``): the registry cannot check it, because script
/// bridges register type-erased values.
struct SharedValue: @unchecked Sendable {
    let value: Any
    init(_ value: Any) { self.value = value }
}
