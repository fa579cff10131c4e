@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization
import Testing
@testable import BloodMagicLua

@Suite("Lua state")
struct LuaStateTests {
    /// The error a fresh state raises running the file `name` that holds `text`.
    private func failure(runningFile name: String, holding text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> LuaError {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let state = try LuaState()
            return try #require(throws: LuaError.self, sourceLocation: sourceLocation) { try state.runFile(path) }
        }
    }

    @Test func errorsReadFileLineMessage() throws {
        let error = try failure(runningFile: "broken.lua", holding: "local x = 1\nlocal y = nil + x\n")
        #expect(error.kind == .runtime)
        #expect(error.chunk?.hasSuffix("broken.lua") == true)
        #expect(error.line == 2)
        #expect(error.reason.contains("attempt to perform arithmetic on a nil value"))
        #expect(error.traceback?.contains("stack traceback:") == true)
    }

    @Test func syntaxErrorsNameTheFileAndLine() throws {
        let error = try failure(runningFile: "syntax.lua", holding: "#!/usr/bin/env bmlua\nlocal ok = 1\nlocal = 2\n")
        #expect(error.kind == .syntax)
        #expect(error.line == 3)  // the shebang line still counts
        #expect(error.message.contains("syntax.lua:3:"))
    }

    @Test func missingFileIsAClearError() throws {
        let state = try LuaState()
        let error = try #require(throws: LuaError.self) { try state.runFile("/nonexistent/x.lua") }
        #expect(error.kind == .io)
        #expect(error.message.hasPrefix("cannot open /nonexistent/x.lua"))
    }

    @Test func fileArgumentsArriveAsVarargs() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("args.lua").path
            try "local a, b = ... return a .. '+' .. b".write(toFile: path, atomically: true, encoding: .utf8)
            let state = try LuaState()
            #expect(try state.runFile(path, arguments: ["x", "y"]) == [.string("x+y")])
        }
    }

    @Test func referencesOutliveTheStackAndAreReleased() throws {
        let state = try LuaState()
        let ref = try state.withStack { (lua) throws(LuaError) -> LuaReference in
            try lua.load("collected = false return setmetatable({ n = 7 }, { __gc = function() collected = true end })", name: "=t")
            try lua.call(arguments: 0, results: 1)
            defer { lua.pop() }
            return lua.reference(at: -1)
        }
        _ = try state.run("collectgarbage()")
        #expect(try state.evaluate("return collected", as: Bool.self) == false)
        let n = try state.withStack { (lua) throws(LuaError) -> Int in
            lua.push(ref)
            lua.push("n")
            try lua.getTable(at: -2)
            defer { lua.pop(2) }
            return try lua.value(at: -1)
        }
        #expect(n == 7)
        // Drop the handle on another thread; the state frees the slot when next entered.
        final class Holder: Sendable {
            let reference: Lock<LuaReference?>
            init(_ reference: LuaReference) { self.reference = Lock(reference) }
        }
        let holder = Holder(ref)
        _ = consume ref
        let thread = Thread { holder.reference.withLock { $0 = nil } }
        thread.start()
        while !thread.isFinished { usleep(1000) }
        _ = try state.run("collectgarbage() collectgarbage()")
        _ = try state.run("collectgarbage()")
        #expect(try state.evaluate("return collected", as: Bool.self) == true)
    }

    /// While one thread is inside the state, re-entering it from a Swift
    /// callback goes straight in, and another thread waits until the
    /// outermost call has returned.
    @Test func reentryGoesInWhileAnotherThreadWaits() throws {
        let state = try LuaState()
        let log = Lock<[String]>([])
        let otherStarted = Atomic<Bool>(false)
        let otherDone = Atomic<Bool>(false)
        state.withStack { lua in
            // Unowned: the state keeps this function, so a strong capture
            // would be a cycle that never frees the state.
            lua.register("swiftDepth") { [unowned state] lua in
                // Re-entry from inside a Lua call on the same thread.
                let inner = state.withStack { $0.top }
                lua.push(inner >= 0 ? 1 : 0)
                return 1
            }
        }
        let other = Thread {
            otherStarted.store(true, ordering: .releasing)
            state.withStack { _ in log.withLock { $0.append("other") } }
            otherDone.store(true, ordering: .releasing)
        }
        let sum = try state.withStack { (lua) throws(LuaError) -> Int in
            other.start()
            while !otherStarted.load(ordering: .acquiring) { usleep(100) }
            var sum = 0
            for _ in 0..<200 {
                try lua.load("return swiftDepth()", name: "=t")
                try lua.call(arguments: 0, results: 1)
                sum += try lua.value(at: -1, as: Int.self)
                lua.pop()
                // The other thread cannot have got in while this one is inside.
                #expect(otherDone.load(ordering: .acquiring) == false)
            }
            log.withLock { $0.append("first") }
            return sum
        }
        #expect(sum == 200)
        while !otherDone.load(ordering: .acquiring) { usleep(100) }
        #expect(log.withLock { $0 } == ["first", "other"])
        #expect(state.withStack { $0.top } == 0)
    }

    /// A throwing body leaves the state unlocked and its stack as it found it.
    @Test func throwingBodiesReleaseTheState() throws {
        let state = try LuaState()
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try state.withStack { (lua) throws(Stop) -> Int in
                lua.push(1)
                lua.push(2)
                throw Stop()
            }
        }
        let done = Atomic<Bool>(false)
        let thread = Thread {
            _ = state.withStack { $0.top }
            done.store(true, ordering: .releasing)
        }
        thread.start()
        while !done.load(ordering: .acquiring) { usleep(100) }
        #expect(state.withStack { $0.top } == 0)
    }

    @Test func functionReferencesCanBeCalledLater() throws {
        let state = try LuaState()
        let values = try state.run("return function(a, b) return a * b end")
        guard case .function(let f) = values.first else {
            Issue.record("expected a function, got \(values)")
            return
        }
        let product = try state.withStack { (lua) throws(LuaError) -> Int in
            lua.push(f)
            lua.push(6)
            lua.push(7)
            try lua.call(arguments: 2, results: 1)
            defer { lua.pop() }
            return try lua.value(at: -1)
        }
        #expect(product == 42)
    }

    @Test func metamethodsRunProtected() throws {
        let state = try LuaState()
        _ = try state.run("t = setmetatable({}, { __index = function(_, k) error('no field ' .. k) end })", name: "@meta.lua")
        let (error, top) = try state.withStack { (lua) throws(LuaError) -> (LuaError?, Int32) in
            lua.pushRawGlobal("t")
            lua.push("missing")
            do {
                try lua.getTable(at: -2)
                return (nil, lua.top)
            } catch {
                return (error as? LuaError, lua.top)
            }
        }
        #expect(error?.message == "meta.lua:1: no field missing")
        // Only the table is left: key and error are gone.
        #expect(top == 1)
        #expect(state.withStack { $0.top } == 0)
    }

    @Test func oneStateFromManyThreads() async throws {
        let state = try LuaState()
        _ = try state.run("counter = 0")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<200 {
                        _ = try? state.run("counter = counter + 1")
                    }
                }
            }
        }
        #expect(try state.evaluate("return counter", as: Int.self) == 1600)
    }
}
