// Spells in places Swift does not let them work: each line marked
// `expect:` must appear in the compiler's errors (scripts/test-compiler-messages
// typechecks this file against the built BloodMagic module).
import BloodMagic

final class Settings {
    // A static property has no enclosing instance: the instance spells say
    // which static spell to write instead.
    // expect: '@Lazy works only on instance properties of classes; in a struct write @Resolved (resolved when the struct is made); on a static property write @StaticLazy(in: Container.self, name: "property")'
    @Lazy static var cache: Int
    // expect: '@Injectable works only on instance properties of classes; in a struct write @Resolved (resolved when the struct is made); on a static property write @StaticInjectable(in: Container.self, name: "property")'
    @Injectable static var log: Int
    // expect: '@Preference works only on instance properties of classes; on a static property write @StaticPreference(in: Container.self, name: "property")'
    @Preference static var nickname: String?
    // expect: '@Final works only on instance properties of classes (not on static properties, structs or globals)'
    @Final static var id: Int
    // expect: '@Partial works only on instance properties of classes (not on static properties, structs or globals)'
    @Partial static var header: Int
}

struct Value {
    // A struct has no enclosing instance either: the spells name @Resolved.
    // expect: '@Injectable works only on instance properties of classes; in a struct write @Resolved'
    @Injectable var log: Int
    // expect: '@Lazy works only on instance properties of classes; in a struct write @Resolved'
    @Lazy var cache: Int
    // expect: '@Provider works only on instance properties of classes; in a struct write @Resolved (one value, resolved when the struct is made), or call Registry.current.resolveValue(_:) for each new value'
    @Provider var task: Int
    // The struct spell compiles.
    @Resolved var resolved: Int
}

// In the Swift 6 language mode a wrapped static property must belong to a
// global-actor-isolated type (Swift's rule, whatever the wrapper).
final class Unisolated {
    // expect: static property 'manager' is not concurrency-safe because it is nonisolated global shared mutable state
    @StaticInjectable(in: Unisolated.self, name: "manager") static var manager: Int
}

@MainActor final class Isolated {
    @StaticInjectable(in: Isolated.self, name: "manager") static var manager: Int
    @StaticLazy(in: Isolated.self, name: "cache") static var cache = 0
    @StaticPreference(in: Isolated.self, name: "volume") static var volume = 5
}
