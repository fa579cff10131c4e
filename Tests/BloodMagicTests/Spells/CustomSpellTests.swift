import BloodMagic
import Synchronization
import Testing

/// Records what the hooks saw and clamps written values.
private struct Clamped: CustomSpell {
    let range: ClosedRange<Int>
    let log: SpellLog

    func get(_ value: inout Int, context: SpellContext) {
        log.add("get \(context.property) \(value) from \(type(of: context.sender))")
    }

    func set(_ newValue: inout Int, oldValue: Int, context: SpellContext) {
        log.add("set \(context.property) \(oldValue)->\(newValue)")
        newValue = min(max(newValue, range.lowerBound), range.upperBound)
    }
}

private typealias SpellLog = SharedLog<String>

private let clampLog = SpellLog()

private final class Player {
    @Spelled(Clamped(range: 0...10, log: clampLog)) var volume = 5
    @Spelled(RegisteredSpell("shout")) var greeting = "hi"
}

@Suite(.serialized) struct CustomSpellTests {
    @Test func getAndSetHooksSeeSenderNameAndValueAndMayReplaceIt() {
        let player = Player()
        player.volume = 42
        #expect(player.volume == 10)
        player.volume = -3
        #expect(player.volume == 0)
        #expect(clampLog.all == [
            "set volume 5->42", "get volume 10 from Player", "set volume 10->-3", "get volume 0 from Player",
        ])
    }

    @Test func aSpellRegisteredByNameRunsFromTheRegistry() {
        let registry = Registry()
        registry.registerSpell(named: "shout", get: { value, context in
            if let text = value as? String { value = text.uppercased() + " (\(context.property))" }
        }, set: { newValue, oldValue, _ in
            if let text = newValue as? String { newValue = "\(text)!" + ((oldValue as? String).map { " was \($0)" } ?? "") }
        })
        #expect(registry.entries.first?.kind == .customSpell)
        #expect(registry.entries.first?.property == "shout")
        Registry.withCurrent(registry) {
            let player = Player()
            player.greeting = "hey"
            #expect(player.greeting == "HEY! WAS HI (greeting)")
        }
    }
}
