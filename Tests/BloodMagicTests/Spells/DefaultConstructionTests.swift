import BloodMagic
import Foundation
import Testing

private final class Inventory {
    @Lazy var items: [String]
    @Lazy var counts: [String: Int]
    @Lazy var tags: Set<String>
    @Lazy var title: String
    @Lazy var total: Int
    @Lazy var ratio: Double
    @Lazy var enabled: Bool
    @Lazy var payload: Data
    @Lazy var maybeItems: [String]?
}

/// The standard types get default construction, so a `@Lazy` of an array,
/// dictionary, set, string, number or Data starts empty instead of failing.
@Suite struct DefaultConstructionTests {
    @Test func standardTypesStartEmpty() throws {
        let inventory = Inventory()
        try Registry.withCurrent(Registry()) { () throws in
            #expect(try inventory.$items.value() == [])
            #expect(try inventory.$counts.value() == [:])
            #expect(try inventory.$tags.value() == [])
            #expect(try inventory.$title.value() == "")
            #expect(try inventory.$total.value() == 0)
            #expect(try inventory.$ratio.value() == 0)
            #expect(try inventory.$enabled.value() == false)
            #expect(try inventory.$payload.value() == Data())
            #expect(try inventory.$maybeItems.value() == [])
        }
    }

    @Test func theDefaultIsKeptAndCanBeChanged() {
        let inventory = Inventory()
        Registry.withCurrent(Registry()) {
            inventory.items.append("apple")
            inventory.items.append("pear")
            #expect(inventory.items == ["apple", "pear"])
        }
    }

    @Test func aRegisteredInitializerStillWins() {
        let registry = Registry()
        registry.register([String].self) { _ in ["registered"] }
        let inventory = Inventory()
        Registry.withCurrent(registry) {
            #expect(inventory.items == ["registered"])
        }
    }
}
