import Foundation
import TestSupport
import Testing

@testable import BloodMagicLua

/// Scripts that catch an error get the message an uncaught one has.
@Suite("Caught errors read as uncaught ones")
struct CaughtErrorTests {
    /// Fills memory past a 1 MiB limit.
    static let exhaust = "function() local t = {} for i = 1, 1e7 do t[i] = i end end"
    static let memoryMessage = "memory limit exceeded (limit 1 MiB)"

    @Test(arguments: [
        "local ok, e = pcall(\(exhaust)) return e",
        "local ok, e = xpcall(\(exhaust), function(m) return m end) return e",
        "local co = coroutine.create(\(exhaust)) local ok, e = coroutine.resume(co) return e",
        "local f = coroutine.wrap(\(exhaust)) local ok, e = pcall(f) return e",
        "local ok, e = pcall(function() local ok2, e2 = pcall(\(exhaust)) error(e2, 0) end) return e",
    ])
    func aMemoryErrorCaughtInTheScriptNamesTheLimit(code: String) throws {
        let host = try makeHost(limits: LuaLimits(maxMemory: 1 << 20))
        let message = try host.lua(code).first
        #expect(message == .string(Self.memoryMessage))
    }

    @Test func theUncaughtErrorSaysTheSame() throws {
        let host = try makeHost(limits: LuaLimits(maxMemory: 1 << 20))
        #expect(host.failure("(\(Self.exhaust))()") == Self.memoryMessage)
    }

    @Test func aScriptsOwnNotEnoughMemoryStaysAsWritten() throws {
        let host = try makeHost(limits: LuaLimits(maxMemory: 1 << 20))
        #expect(try host.lua("local ok, e = pcall(error, 'not enough memory', 0) return e").first == .string("not enough memory"))
    }

    @Test func pcallAndXpcallKeepTheirResults() throws {
        let host = try makeHost()
        #expect(try host.lua("return pcall(function(a, b) return a + b, 'x' end, 1, 2)") == [.boolean(true), .integer(3), .string("x")])
        #expect(try host.lua("return xpcall(function(a) return a end, print, 7)") == [.boolean(true), .integer(7)])
        #expect(try host.lua("return xpcall(error, function(m) return 'handled: ' .. m end, 'boom', 0)") == [.boolean(false), .string("handled: boom")])
        #expect(try host.lua("return select('#', pcall(error))") == [.integer(2)])
        // Yields across pcall still work in a coroutine.
        #expect(try host.lua("""
            local co = coroutine.wrap(function() local ok, v = pcall(function() return coroutine.yield(1) + 1 end) return v end)
            co() return co(41)
            """) == [.integer(42)])
    }

    @Test func recursionThroughBmResolveNamesTheCycleAtTheScriptsLine() throws {
        let dir = try scratchDirectory([
            "rec.lua": """
                bm.initializer { type = "A", init = function()
                  return bm.resolve("A")
                end }
                local ok, err = pcall(bm.resolve, "A")
                print(err)
                bm.resolve("A")

                """,
        ])
        let file = "\(dir.path)/rec.lua"
        let result = try bmlua([file])
        #expect(result.status == 1)
        #expect(result.stdout == "\(file):2: dependency cycle: A (\(file):2) -> A (\(file):2)\n")
        #expect(result.stderr.hasPrefix("bmlua: \(file):2: dependency cycle: A (\(file):2) -> A (\(file):2)\n"))
        #expect(!result.stderr.contains("[bm"))
    }

    @Test func aCycleOfTwoTypesShowsEachStepsLine() throws {
        let host = try makeHost()
        let message = host.failure("""
            bm.initializer { type = "A", init = function() return { b = bm.resolve("B") } end }
            bm.initializer { type = "B", init = function()
              return { a = bm.resolve("A", { container = "Screen" }) }
            end }
            bm.initializer { type = "A", container = "Screen", init = function() return { b = bm.resolve("B") } end }
            return bm.resolve("A")
            """, file: "ab.lua")
        #expect(message == "ab.lua:3: dependency cycle: A (ab.lua:3) -> B (ab.lua:5) -> A (ab.lua:3)")
    }

    @Test func aRecursionThatDoesNotRepeatShowsTheChain() throws {
        // T1 needs T2 needs T3 ...: no step repeats, the stack runs out first.
        let host = try makeHost()
        let message = host.failure("""
            for i = 1, 400 do
              bm.initializer { type = "T" .. i, init = function() return bm.resolve("T" .. (i + 1)) end }
            end
            return bm.resolve("T1")
            """, file: "chain.lua")
        let text = try #require(message)
        #expect(text.hasPrefix("chain.lua:2: C stack overflow (resolving T1 (chain.lua:4) -> T2 (chain.lua:2) -> T3 (chain.lua:2) -> … "))
        #expect(text.hasSuffix(" (chain.lua:2))"))
        #expect(!text.contains("[bm"))
    }

    @Test func errorsRaisedInsideTheBmModuleNeverCarryItsPosition() throws {
        let host = try makeHost()
        // A Lua class property resolved through ever new objects until the stack ends.
        let message = host.failure("""
            local Node
            Node = bm.class("Node", { child = bm.spell.lazy("Node") })
            bm.initializer { type = "Node", container = "Node", init = function()
              local n = Node.new()
              local _ = n.child
              return n
            end }
            return Node.new().child
            """, file: "tree.lua")
        #expect(message == "tree.lua:5: dependency cycle: Node.child -> Node.child")
    }
}
