@testable import BloodMagic
import Testing

private class Animal {}
private final class Dog: Animal {}
private protocol Named {}
extension Dog: Named {}

/// The fast path of a resolved value's cast: only a value of exactly the
/// property's type takes it; everything else goes through the general cast,
/// unchanged.
@Suite struct ExactCastTests {
    @Test func onlyTheExactTypeTakesTheFastPath() throws {
        let dog = Dog()
        #expect(Registry.exactly(dog as Any, as: Dog.self) === dog)
        #expect(Registry.exactly(dog as Any, as: Animal.self) == nil, "a subclass is not the exact type")
        #expect(Registry.exactly(42 as Any, as: Int.self) == 42)
        #expect(Registry.exactly(42 as Any, as: Int64.self) == nil)
        #expect(Registry.exactly("text" as Any, as: String.self) == "text")
        #expect(Registry.exactly(Optional(3) as Any, as: Int.self) == nil, "an Optional is not its wrapped type")
        #expect(Registry.exactly([1, 2] as Any, as: [Int].self) == [1, 2])
    }

    @Test func theGeneralCastStillServesSubclassesProtocolsAndOptionals() throws {
        let dog = Dog()
        let sender = Dog()
        #expect(try Registry.cast(dog as Any, to: Animal.self, property: "pet", sender: sender, source: "t:1") === dog)
        #expect(try Registry.cast(dog as Any, to: (any Named).self, property: "pet", sender: sender, source: "t:1") is Dog)
        #expect(try Registry.cast(5 as Any, to: Int?.self, property: "count", sender: sender, source: "t:1") == 5)
        #expect(throws: SpellError.self) {
            try Registry.cast("five" as Any, to: Int.self, property: "count", sender: sender, source: "t:1")
        }
    }
}
