import Foundation
import Testing
import TestSupport
@testable import BloodMagic

/// Issue 25, "the closest-name ranking on a miss": the ranking searched
/// every registered name for the wanted one with String.contains, which
/// costs the product of the two lengths: 400 registrations with names of
/// 1,000 characters took seconds per miss, 10,000 took minutes. It is now
/// linear in the bytes of the registered names, and reports its work to a
/// charging closure that may stop it.
@Suite("Registry: closest registrations")
struct ClosestRegistrationsTests {
    /// A registry with `count` initializers for long names that keep
    /// almost matching the wanted one (`abab…ab1`, `abab…ab2`, …).
    private func registry(count: Int) -> Registry {
        let registry = Registry()
        let long = String(repeating: "ab", count: 500)
        for index in 0..<count {
            registry.registerInitializer(type: SpellTypeKey(name: long + "\(index)"), source: "r.lua:\(index)") { _ in index }
        }
        return registry
    }

    @Test func aMissAmongLongNamesIsLinearInTheirBytes() {
        let registry = registry(count: 2000)
        let wanted = SpellTypeKey(name: String(repeating: "ab", count: 499) + "ac")
        let started = ContinuousClock.now
        for _ in 0..<20 {
            #expect(registry.closestRegistrations(to: wanted).isEmpty)
        }
        // Linear: 20 misses take milliseconds in a release build and well
        // under a second in a debug one. The quadratic search took tens of
        // seconds per miss at this size, so the bound (loose enough for a
        // loaded 2-core machine and sanitizers) still fails it by far.
        #expect(ContinuousClock.now - started < TestTime.bound(.seconds(30)), "\(ContinuousClock.now - started)")
        // And deterministically: twice the names, twice the work charged.
        var small = 0, large = 0
        _ = self.registry(count: 1000).closestRegistrations(to: wanted, charging: { small += $0 })
        _ = registry.closestRegistrations(to: wanted, charging: { large += $0 })
        #expect(Double(large) <= 2.2 * Double(small), "\(small) -> \(large)")
    }

    /// The work is reported in batches, a unit per 16 bytes of the names
    /// looked at (more for names it compares), and a charge that throws
    /// stops the ranking at once.
    @Test func theWorkIsChargedAndACharge_CanStopIt() throws {
        let registry = registry(count: 2000)
        let wanted = SpellTypeKey(name: "Missing")
        var charged = 0
        _ = registry.closestRegistrations(to: wanted, charging: { charged += $0 })
        #expect(charged >= 2000 * (1000 / 16), "\(charged)")
        struct Spent: Error {}
        var calls = 0
        #expect(throws: Spent.self) {
            try registry.closestRegistrations(to: wanted, charging: { _ in
                calls += 1
                throw Spent()
            })
        }
        #expect(calls == 1)
    }

    /// What was close before still is: the same type elsewhere, the same
    /// name, then a name that contains the other (or is contained in it).
    @Test func similarNamesStillRankAfterExactOnes() {
        let registry = Registry()
        registry.registerInitializer(type: SpellTypeKey(name: "FeedLoader"), source: "a.lua:1") { _ in 1 }
        registry.registerInitializer(type: SpellTypeKey(name: "Unrelated"), source: "a.lua:2") { _ in 2 }
        registry.registerInitializer(type: SpellTypeKey(name: "App.Loader"), source: "a.lua:3") { _ in 3 }
        registry.registerInitializer(type: SpellTypeKey(name: "Load"), source: "a.lua:4") { _ in 4 }
        let closest = registry.closestRegistrations(to: SpellTypeKey(name: "Loader")).map(\.source)
        #expect(closest == ["a.lua:3", "a.lua:4", "a.lua:1"])
    }
}

/// The bounded edit distance and the substring search behind the hints.
@Suite("NameSimilarity")
struct NameSimilarityTests {
    /// The full table, for comparison.
    private func fullDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        for i in a.indices {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for j in b.indices {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    @Test func theBoundedDistanceAgreesWithTheFullTable() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let a = (0..<Int.random(in: 0...9, using: &generator)).map { _ in UInt8.random(in: 97...99, using: &generator) }
            let b = (0..<Int.random(in: 0...9, using: &generator)).map { _ in UInt8.random(in: 97...99, using: &generator) }
            let full = fullDistance(a, b)
            for limit in 0...4 {
                let bounded = NameSimilarity.editDistance(a, b, atMost: limit)
                #expect(bounded == (full <= limit ? full : nil), "\(a) \(b) limit \(limit)")
            }
        }
    }

    @Test func longNamesCostTheirLengthNotItsSquare() {
        let a = Array(repeating: UInt8(ascii: "a"), count: 1 << 20)
        var b = a
        b[b.count / 2] = UInt8(ascii: "b")
        let started = ContinuousClock.now
        #expect(NameSimilarity.editDistance(a, b, atMost: 3) == 1)
        #expect(NameSimilarity.editDistance(a, Array(repeating: UInt8(ascii: "b"), count: 1 << 20), atMost: 3) == nil)
        #expect(NameSimilarity.Pattern(b).occurs(in: a) == false)
        #expect(NameSimilarity.Pattern(Array(b[1000...])).occurs(in: b))
        #expect(ContinuousClock.now - started < TestTime.bound(.seconds(20))) // generous for sanitized and loaded runs; the quadratic search took hours
    }
}
