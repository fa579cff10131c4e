import CLua
import Testing
@testable import BloodMagicLua

/// An app's own error, thrown by Swift code that a script calls.
private struct InsufficientFunds: Error, Equatable, CustomStringConvertible {
    var needed: Int
    var description: String { "insufficient funds: \(needed) needed" }
}

private final class Wallet: LuaExposable {
    var balance = 100
}

/// A state with `Wallet` exposed (`withdraw` throws the app's error past the
/// balance) and a Swift function `charge(n)` that does the same.
private func makeState(limits: LuaLimits = .none) throws -> LuaState {
    let state = try LuaState(limits: limits)
    state.expose(LuaExposedType(Wallet.self)
        .constructor { _ in Wallet() }
        .method("withdraw", arguments: ["amount"]) { (wallet: Wallet, amount: Int) throws -> Int in
            guard amount <= wallet.balance else { throw InsufficientFunds(needed: amount - wallet.balance) }
            wallet.balance -= amount
            return wallet.balance
        })
    state.withStack { lua in
        lua.register("charge") { lua in
            let amount: Int = try lua.argument(1, of: "charge")
            throw InsufficientFunds(needed: amount)
        }
        lua.register("carried") { lua in
            lua.push(lua.carriedErrorCount)
            return 1
        }
    }
    return state
}

@Suite("A Swift error through Lua")
struct LuaErrorCauseTests {
    @Test func comesBackFromAnExposedMethodAsItself() throws {
        let state = try makeState()
        // As an app's code that catches any error.
        func pay() throws {
            _ = try state.run("local w = Wallet.new()\nw:withdraw(30)\nw:withdraw(500)", name: "@pay.lua")
        }
        do {
            try pay()
            Issue.record("the withdrawal should fail")
        } catch let error as LuaError where error.cause is InsufficientFunds {
            #expect(error.cause(as: InsufficientFunds.self) == InsufficientFunds(needed: 430))
            #expect(error.kind == .runtime)
            #expect(error.message == "pay.lua:3: insufficient funds: 430 needed")
            #expect(error.chunk == "pay.lua" && error.line == 3)
            #expect(error.traceback?.contains("stack traceback:") == true)
        }
    }

    @Test func comesBackFromAPushedSwiftFunctionAsItself() throws {
        let state = try makeState()
        let error = try #require(throws: LuaError.self) { try state.run("\ncharge(7)", name: "@shop.lua") }
        #expect(error.cause(as: InsufficientFunds.self) == InsufficientFunds(needed: 7))
        #expect(error.message == "shop.lua:2: insufficient funds: 7 needed")
        // Through the lower-level calls too.
        let direct = try #require(throws: LuaError.self) {
            try state.withStack { (lua) throws(LuaError) in
                lua.pushRawGlobal("charge")
                lua.push(3)
                try lua.call(arguments: 1, results: 0)
            }
        }
        #expect(direct.cause(as: InsufficientFunds.self) == InsufficientFunds(needed: 3))
        #expect(state.withStack { $0.carriedErrorCount } == 0)
    }

    /// Lua passes the same error value on: caught and raised again, by
    /// pcall, xpcall, coroutines, at any depth.
    @Test(arguments: [
        "local ok, e = pcall(charge, 5) error(e)",
        "local ok, e = pcall(charge, 5) error(e, 0)",
        "local ok, e = pcall(function() local ok2, e2 = pcall(charge, 5) error(e2, 2) end) error(e)",
        "local ok, e = xpcall(charge, function(m) return m end, 5) error(e)",
        "local co = coroutine.wrap(function() charge(5) end) co()",
        "local co = coroutine.create(function() charge(5) end) local ok, e = coroutine.resume(co) error(e)",
        "local w = Wallet.new() local ok, e = pcall(w.withdraw, w, 105) error(e)",
        "local ok, e = pcall(charge, 5) local copy = { e } error(copy[1])",
    ])
    func survivesBeingCaughtAndRaisedAgain(code: String) throws {
        let state = try makeState()
        let error = try #require(throws: LuaError.self) { try state.run(code, name: "@again.lua") }
        #expect(error.cause(as: InsufficientFunds.self) == InsufficientFunds(needed: 5), "\(error)")
        #expect(error.message.hasSuffix("insufficient funds: 5 needed"), "\(error.message)")
    }

    /// What a script holds reads as the message, in the ways scripts read
    /// error messages; nothing else about it can be read.
    @Test func aScriptSeesOnlyTheMessage() throws {
        let state = try makeState()
        let values = try state.run(
            """
            local ok, e = pcall(charge, 9)
            return type(e), tostring(e), "! " .. e, e .. " !", #e, e:find("funds", 1, true), e:upper(),
              getmetatable(e), e.needed, rawequal(e, tostring(e))
            """, name: "@read.lua")
        let message = "read.lua:1: insufficient funds: 9 needed"
        let expected: [LuaValue] = [
            .string("userdata"), .string(message), .string("! " + message), .string(message + " !"),
            .integer(message.utf8.count), .integer(26), .string(message.uppercased()),
            .string("Swift error"), .nil, .boolean(false),
        ]
        #expect(values == expected)
        // Lua's own string functions take strings only: tostring first.
        let strict = try #require(throws: LuaError.self) { try state.run("local ok, e = pcall(charge, 9) return string.len(e)") }
        #expect(strict.message.contains("string expected, got Swift error"), "\(strict.message)")
        #expect(strict.cause == nil)
    }

    /// A script cannot make an error that carries a Swift error: not from
    /// the message's text, not with a table of its own, not by changing the
    /// object; and one kept past its run carries nothing.
    @Test func aScriptCannotForgeTheCause() throws {
        let state = try makeState()
        // The object itself, passed on, carries it.
        let passed = try #require(throws: LuaError.self) { try state.run("local ok, e = pcall(charge, 1) error(e)", name: "@forge.lua") }
        #expect(passed.cause(as: InsufficientFunds.self) == InsufficientFunds(needed: 1))
        let attempts = [
            "local ok, e = pcall(charge, 1) error(tostring(e), 0)",
            "local ok, e = pcall(charge, 1) error('' .. e, 0)",
            "local ok, e = pcall(charge, 1) error(setmetatable({}, { __tostring = function() return tostring(e) end }))",
            "local ok, e = pcall(charge, 1) local ok2 = pcall(setmetatable, e, {}) error(ok2 and 'changed' or e:sub(1), 0)",
        ]
        for code in attempts {
            let error = try #require(throws: LuaError.self) { try state.run(code, name: "@forge.lua") }
            #expect(error.cause == nil, "\(code): \(error)")
        }
        // An error object kept in a global outlives its run; its Swift error does not.
        _ = try state.run("local ok, e = pcall(charge, 2) kept = e", name: "@keep.lua")
        #expect(state.withStack { $0.carriedErrorCount } == 0)
        let later = try #require(throws: LuaError.self) { try state.run("error(kept)", name: "@later.lua") }
        #expect(later.message == "keep.lua:1: insufficient funds: 2 needed")
        #expect(later.cause == nil)
    }

    /// Swift errors caught and dropped by a script are released once Lua
    /// collects their error values, and at the end of the run at the
    /// latest: many errors in one run do not grow the state. While Lua
    /// holds one, it is charged to the memory limit.
    @Test func causesAreReleasedAndCharged() throws {
        let counter = LiveCounter()
        let state = try makeState(limits: LuaLimits(maxMemory: 1 << 20))
        state.withStack { lua in
            lua.register("fail") { _ in throw TrackedError(payload: Tracked(counter, "kept by Lua")) }
        }
        let baseline = state.withStack { $0.memoryInUse }
        // 200,000 errors would be 12 MiB if none were released.
        let most = try state.evaluate(
            """
            local most = 0
            for i = 1, 200000 do
              local ok, e = pcall(fail)
              if i % 1000 == 0 then most = math.max(most, carried()) end
            end
            return most
            """, as: Int.self)
        #expect(most > 0 && most < 20_000, "at most \(most) kept at once")
        #expect(counter.live == 0)
        #expect(state.withStack { $0.carriedErrorCount } == 0)
        // Held errors stay kept (and charged) while Lua holds them, and
        // are released when the run ends.
        let (held, grew) = try state.withStack { (lua) throws(LuaError) -> (Int, Double) in
            try lua.load(
                """
                held = {}
                for i = 1, 100 do local ok, e = pcall(fail) held[i] = e end
                collectgarbage() collectgarbage("stop")
                local before = collectgarbage("count")
                local ok, e = pcall(fail)
                local grew = (collectgarbage("count") - before) * 1024
                collectgarbage("restart")
                return carried(), grew
                """, name: "=held")
            try lua.call(arguments: 0, results: 2)
            defer { lua.pop(2) }
            return (try lua.value(at: -2), try lua.value(at: -1))
        }
        #expect(held == 101)
        #expect(grew >= Double(LuaErrorCauses.entryBytes), "one error object grew the state by \(grew) bytes")
        #expect(counter.live == 0)
        _ = try state.run("held = nil collectgarbage() collectgarbage()")
        #expect(state.withStack { $0.memoryInUse } < baseline + 64 << 10)
    }

    /// A LuaError thrown by Swift code inside a callback (a nested call
    /// that failed with a carried error) goes on carrying the same cause.
    @Test func aNestedCallPassesTheCauseOn() throws {
        let state = try makeState()
        state.withStack { lua in
            lua.register("nested") { lua in
                try lua.load("charge(11)", name: "@inner.lua")
                try lua.call(arguments: 0, results: 0)
                return 0
            }
        }
        let error = try #require(throws: LuaError.self) { try state.run("local ok, e = pcall(nested) error(e)", name: "@outer.lua") }
        #expect(error.cause(as: InsufficientFunds.self) == InsufficientFunds(needed: 11))
        #expect(error.message == "inner.lua:1: insufficient funds: 11 needed")
        // A LuaError without a cause stays a plain message, as before.
        let plain = try #require(throws: LuaError.self) { try state.run("local w = Wallet.new() w:withdraw('x')", name: "@plain.lua") }
        #expect(plain.cause == nil)
        #expect(try state.run("local w = Wallet.new() local ok, e = pcall(w.withdraw, w, 'x') return type(e)") == [.string("string")])
    }
}
