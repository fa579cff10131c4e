import BloodMagic
import Testing
import TestSupport

// Issue 15: values already injected stay when the wiring changes; the app
// re-injects on purpose.

private final class Gadget {
    let version: Int
    init(version: Int) { self.version = version }
}

private class BaseConsole {
    @Injectable var gadget: Gadget
}

private final class Console: BaseConsole {
    @Lazy var spare: Gadget
    @Injectable var optionalGadget: Gadget?
    @Final var name: String
}

@Suite struct ReinjectionTests {
    @Test func resetMakesTheNextReadUseTheWiringInForce() throws {
        let registry = Registry()
        var handle = registry.register(Gadget.self) { _ in Gadget(version: 1) }
        let console = Registry.withCurrent(registry) { Console() }
        #expect(try console.$gadget.value().version == 1)
        #expect(try console.$spare.value().version == 1)
        registry.unregister(handle)
        handle = registry.register(Gadget.self) { _ in Gadget(version: 2) }
        // Injected values stay...
        #expect(try console.$gadget.value().version == 1)
        // ...until the app asks for new ones, inherited properties included.
        let reset = registry.reset(console)
        #expect(Set(reset) == ["gadget", "spare"])
        #expect(try console.$gadget.value().version == 2)
        #expect(try console.$spare.value().version == 2)
        #expect(registry.reset(Console()).isEmpty, "nothing was injected yet")
        _ = handle
    }

    @Test func resetLeavesOtherSpellsAlone() throws {
        let registry = Registry()
        registry.register(Gadget.self) { _ in Gadget(version: 1) }
        let console = Registry.withCurrent(registry) { Console() }
        console.name = "desk"
        #expect(try console.$optionalGadget.value()?.version == 1)
        registry.reset(console)
        #expect(console.name == "desk")
        #expect(try console.$optionalGadget.value()?.version == 1)
    }
}
