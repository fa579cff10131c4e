import CLua
import CLuaHost
import Testing
@testable import BloodMagicLua

private final class Gauge: LuaExposable {
    var level = 3
    var label = "tank"
    var ratio = 0.25
    var flag = false
    let serial = 42
    var observed = 1 {
        didSet { changes += 1 }
    }
    var changes = 0
    var doubled: Int {
        get { level * 2 }
        set { level = newValue / 2 }
    }
    var inner = Inner()
    struct Inner { var depth = 9 }
}

/// A non-final class: a subclass may override its properties.
private class Dial: LuaExposable {
    var position = 1
}

private final class StuckDial: Dial {
    override var position: Int {
        get { 99 }
        set {}
    }
}

@Suite("Stored property offsets")
struct StoredPropertyOffsetTests {
    @Test func theLayoutIsUnderstoodOnThisPlatform() {
        #expect(StoredPropertyOffset.layoutIsUnderstood == (MemoryLayout<Int>.size == 8))
    }

    /// Only a stored property of a final class, reached in one step, has an
    /// offset; the offset reads what the property holds.
    @Test func onlyDirectStoredPropertiesOfFinalClassesHaveAnOffset() throws {
        guard StoredPropertyOffset.layoutIsUnderstood else { return }
        let gauge = Gauge()
        gauge.level = 17
        gauge.ratio = 0.75
        func read<Value>(_ keyPath: KeyPath<Gauge, Value>) throws -> Value {
            let offset = try #require(StoredPropertyOffset.of(keyPath))
            return withExtendedLifetime(gauge) {
                UnsafeRawPointer(Unmanaged.passUnretained(gauge).toOpaque())
                    .advanced(by: offset).assumingMemoryBound(to: Value.self).pointee
            }
        }
        #expect(try read(\Gauge.level) == 17)
        #expect(try read(\Gauge.label) == "tank")
        #expect(try read(\Gauge.ratio) == 0.75)
        #expect(try read(\Gauge.flag) == false)
        #expect(try read(\Gauge.serial) == 42)
        #expect(StoredPropertyOffset.of(\Gauge.observed) == nil)
        #expect(StoredPropertyOffset.of(\Gauge.doubled) == nil)
        #expect(StoredPropertyOffset.of(\Gauge.inner.depth) == nil)
        #expect(StoredPropertyOffset.of(\Dial.position) == nil)
    }

    /// From Lua, a writable key path reads what Swift and Lua last wrote,
    /// whichever path the read takes; observers run on writes.
    @Test func writableKeyPathsReadTheCurrentValueFromLua() throws {
        let state = try LuaState()
        state.expose(
            LuaExposedType(Gauge.self)
                .property("level", \.level)
                .property("label", \.label)
                .property("ratio", \.ratio)
                .property("flag", \.flag)
                .property("observed", \.observed)
                .property("doubled", \.doubled))
        let gauge = Gauge()
        try state.withStack { (lua) throws(LuaError) in
            lua.push(gauge)
            lua.setRawGlobal("g")
        }
        #expect(try state.run("return g.level, g.label, g.ratio, g.flag, g.observed, g.doubled")
            == [.integer(3), .string("tank"), .number(0.25), .boolean(false), .integer(1), .integer(6)])
        gauge.level = 8
        gauge.label = "drum"
        #expect(try state.run("return g.level, g.label, g.doubled") == [.integer(8), .string("drum"), .integer(16)])
        #expect(try state.run("g.level = 5 g.flag = true g.observed = 4 g.doubled = 30 return g.level, g.flag, g.observed")
            == [.integer(15), .boolean(true), .integer(4)])
        #expect(gauge.level == 15)
        #expect(gauge.changes == 1)
        let error = try #require(throws: LuaError.self) { try state.run("g.level = 'x'", name: "@g.lua") }
        #expect(error.message == "g.lua:1: Gauge.level: bad value (expected integer, got string)")
    }

    /// A non-final class's property goes through the key path, so a
    /// subclass's override is what Lua reads.
    @Test func anOverriddenPropertyReadsTheOverride() throws {
        let state = try LuaState()
        let dial = state.expose(LuaExposedType(Dial.self).property("position", \.position))
        try state.withStack { (lua) throws(LuaError) in
            lua.push(exposed: StuckDial(), as: dial)
            lua.setRawGlobal("d")
            lua.push(Dial())
            lua.setRawGlobal("plain")
        }
        #expect(try state.run("return d.position, plain.position") == [.integer(99), .integer(1)])
    }
}

/// A non-final class whose `final` properties cannot be overridden.
private class Vessel: LuaExposable {
    final var volume = 10
    final var full = false
    final var temperature = 20.5
}

private final class Kettle: Vessel {
    var extra = 1
}

@Suite("Stored properties read in C")
struct StoredPropertyReadInCTests {
    /// Integer, float and boolean stored properties read in `__index`,
    /// for objects of the exposed class and of a subclass pushed as it.
    @Test func plainStoredPropertiesReadTheObjectsOwnValues() throws {
        guard StoredPropertyOffset.layoutIsUnderstood else { return }
        #expect(StoredPropertyOffset.of(\Vessel.volume) != nil)
        let state = try LuaState()
        let info = state.expose(
            LuaExposedType(Vessel.self)
                .property("volume", \.volume)
                .property("full", \.full)
                .property("temperature", \.temperature))
        let vessel = Vessel()
        let kettle = Kettle()
        kettle.volume = 2
        kettle.full = true
        kettle.temperature = -3.25
        try state.withStack { (lua) throws(LuaError) in
            lua.push(exposed: vessel, as: info)
            lua.setRawGlobal("v")
            lua.push(exposed: kettle, as: info)
            lua.setRawGlobal("k")
        }
        #expect(try state.run("return v.volume, v.full, v.temperature, k.volume, k.full, k.temperature")
            == [.integer(10), .boolean(false), .number(20.5), .integer(2), .boolean(true), .number(-3.25)])
        vessel.volume = Int.min
        #expect(try state.run("v.temperature = 99.5 return v.volume, v.temperature") == [.integer(Int.min), .number(99.5)])
        #expect(vessel.temperature == 99.5)
        let member = try #require(info.members["volume"])
        #expect(member.storedKind == Int32(BM_STORED_INT64))
    }
}
