import Foundation
import Synchronization
import Testing
@testable import BloodMagicLua

/// An object that counts its instances and the calls made on it.
private final class Widget: LuaExposable, Sendable {
    let counter: LiveCounter
    let calls = Atomic<Int>(0)
    init(_ counter: LiveCounter) {
        self.counter = counter
        counter.up()
    }
    deinit { counter.down() }
    func poke(_ n: Int) -> Int {
        calls.add(1, ordering: .relaxed)
        return n + 1
    }
}

private func widgetType(_ counter: LiveCounter) -> LuaExposedType<Widget> {
    LuaExposedType(Widget.self)
        .constructor { _ in Widget(counter) }
        .method("poke", arguments: ["n"]) { widget, args in widget.poke(try args.get(1)) }
        .property("calls", get: { $0.calls.load(ordering: .relaxed) })
}

@Suite("Exposed types under limits and threads")
struct LuaExposedLimitsTests {
    @Test func memoryLimitWhileCreatingObjectsIsACleanError() throws {
        let counter = LiveCounter()
        do {
            let state = try LuaState(limits: LuaLimits(maxMemory: 1 << 20))
            state.expose(widgetType(counter))
            let error = try #require(throws: LuaError.self) {
                try state.run("keep = {} while true do keep[#keep + 1] = Widget.new() end", name: "@hog.lua")
            }
            #expect(error.kind == .memoryLimit)
            _ = try state.run("keep = nil collectgarbage() collectgarbage()")
            #expect(counter.live == 0)
            // The state still works.
            #expect(try state.run("return Widget.new():poke(1)") == [.integer(2)])
        }
        #expect(counter.live == 0)
    }

    @Test func eightThreadsCallIntoOneState() async throws {
        let counter = LiveCounter()
        let state = try LuaState()
        state.expose(widgetType(counter))
        let shared = Widget(counter)
        try state.withStack { (lua) throws(LuaError) in
            lua.push(shared)
            lua.setRawGlobal("shared")
        }
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    let values = try state.run(
                        """
                        local sum = 0
                        for i = 1, 2000 do sum = sum + shared:poke(i) - i + Widget.new():poke(0) end
                        return sum
                        """, name: "=thread\(thread)")
                    return values.first?.intValue ?? -1
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: 4000, count: 8))
        #expect(shared.calls.load(ordering: .relaxed) == 16_000)
        #expect(try state.run("return shared.calls") == [.integer(16_000)])
    }
}
