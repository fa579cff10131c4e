import CLua
import Foundation
import Testing
@testable import BloodMagicLua

/// An account with methods of every typed arity.
private class Account: LuaExposable {
    var balance = 0
    var log: [String] = []
    var partner: Account?

    func deposit(_ amount: Int) { balance += amount }
}

/// A subclass whose objects reach the base type's methods.
private final class SavingsAccount: Account {}

private struct Refused: Error, CustomStringConvertible {
    var description: String { "refused by the bank" }
}

private func accountType() -> LuaExposedType<Account> {
    LuaExposedType(Account.self)
        .constructor { _ in Account() }
        .property("balance", get: { $0.balance })
        .method("total") { account in account.balance }
        .method("reset") { (account: Account) in account.balance = 0 }
        .method("deposit", arguments: ["amount"]) { (account, amount: Int) in account.deposit(amount) }
        .method("plus", arguments: ["amount"]) { (account, amount: Int) in account.balance + amount }
        .method("note", arguments: ["text", "times?"]) { (account, text: String, times: Int?) in
            for _ in 0..<(times ?? 1) { account.log.append(text) }
        }
        .method("describe", arguments: ["prefix", "scale"]) { (account, prefix: String, scale: Double) in
            "\(prefix)\(Double(account.balance) * scale)"
        }
        .method("move", arguments: ["to", "amount", "memo?"]) { (account, to: Account, amount: Int, memo: String?) -> Void in
            account.balance -= amount
            to.balance += amount
            if let memo { account.log.append(memo) }
        }
        .method("mix", arguments: ["a", "b", "c"]) { (_: Account, a: Int, b: Bool, c: String) in
            "\(a) \(b) \(c)"
        }
        .method("refuse") { (_: Account) throws -> Int in throw Refused() }
}

@Suite("Typed exposed methods")
struct LuaTypedMethodTests {
    private func makeState() throws -> LuaState {
        let state = try LuaState()
        state.expose(accountType())
        state.expose(LuaExposedType(SavingsAccount.self).constructor { _ in SavingsAccount() })
        return state
    }

    /// The message of the error `code` raises as the chunk `bank.lua`.
    private func bankFailure(_ state: LuaState, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try state.failure(running: code, name: "@bank.lua", sourceLocation: sourceLocation).message
    }

    @Test func argumentsArriveTypedAndResultsReturn() throws {
        let state = try makeState()
        let results = try state.run(
            """
            local a = Account.new()
            a:deposit(40)
            a:note("hello")
            a:note("twice", 2)
            local b = Account.new()
            a:move(b, 15, "rent")
            return a:total(), b:total(), a:plus(2), a:describe("x", 0.5), a:mix(1, true, "s")
            """)
        #expect(results == [.integer(25), .integer(15), .integer(27), .string("x12.5"), .string("1 true s")])
        let log = try state.run("local a = Account.new() a:note('n', 3) a:reset() return a:total()")
        #expect(log == [.integer(0)])
    }

    @Test func aMethodCallsTheSwiftBodyWithTheObjectItself() throws {
        let state = try makeState()
        let account = Account()
        try state.withStack { (lua) throws(LuaError) in
            lua.push(account)
            lua.setRawGlobal("mine")
        }
        _ = try state.run("mine:deposit(7) mine:note('a', 2)")
        #expect(account.balance == 7)
        #expect(account.log == ["a", "a"])
    }

    @Test func aBadArgumentIsNamedWithTheScriptPosition() throws {
        let state = try makeState()
        #expect(try bankFailure(state, "local a = Account.new()\na:deposit('ten')") == "bank.lua:2: Account.deposit: bad argument #1 'amount' (expected integer, got string)")
        #expect(try bankFailure(state, "Account.new():deposit(1.5)") == "bank.lua:1: Account.deposit: bad argument #1 'amount' (expected integer, got number 1.5)")
        #expect(try bankFailure(state, "Account.new():mix(1, true, {})") == "bank.lua:1: Account.mix: bad argument #3 'c' (expected string, got table)")
        #expect(try bankFailure(state, "Account.new():move({}, 1)") == "bank.lua:1: Account.move: bad argument #1 'to' (expected Account, got table)")
    }

    @Test func missingArgumentsAreNilAndExtraOnesAreRefused() throws {
        let state = try makeState()
        // An optional parameter may be left out; a required one reads nil and says so.
        #expect(try state.run("local a = Account.new() a:note('once') return a:total()") == [.integer(0)])
        #expect(try bankFailure(state, "Account.new():deposit()") == "bank.lua:1: Account.deposit: bad argument #1 'amount' (expected integer, got nil)")
        #expect(try bankFailure(state, "Account.new():deposit(1, 2)") == "bank.lua:1: Account.deposit: expected 1 argument, got 2")
        #expect(try bankFailure(state, "Account.new():note('a', 1, 2)") == "bank.lua:1: Account.note: expected 1 to 2 arguments, got 3")
        #expect(try bankFailure(state, "Account.new():total(1)") == "bank.lua:1: Account.total: expected 0 arguments, got 1")
    }

    @Test func selfIsCheckedAndSubclassObjectsAreAccepted() throws {
        let state = try makeState()
        #expect(try bankFailure(state, "Account.deposit({}, 1)") == "bank.lua:1: Account.deposit: expected a Account object as self, got table (call it as obj:deposit(...))")
        let noSelf = try state.failure(running: "Account.total()", name: "@bank.lua")
        #expect(noSelf.message.hasPrefix("bank.lua:1: Account.total: expected a Account object as self, got "))
        // A subclass object has its own exposed type (another tag): the
        // base type's methods still take it, through the dynamic cast.
        #expect(try state.run("local s = SavingsAccount.new() Account.deposit(s, 5) return Account.total(s)") == [.integer(5)])
    }

    @Test func aThrowingBodyRaisesItsErrorAtTheCall() throws {
        let state = try makeState()
        #expect(try bankFailure(state, "\n\nreturn Account.new():refuse()") == "bank.lua:3: refused by the bank")
        // pcall catches it like any Lua error; the state stays usable.
        #expect(try state.run("local ok, e = pcall(Account.refuse, Account.new()) return ok, tostring(e)", name: "@bank.lua")
            == [.boolean(false), .string("bank.lua:1: refused by the bank")])
        #expect(try state.run("return Account.new():plus(1)") == [.integer(1)])
    }

    @Test func typedMethodsDescribeTheirArgumentsToEditors() throws {
        let state = try makeState()
        let info = try #require(state.exposedType(named: "Account"))
        let move = try #require(info.members["move"])
        #expect(move.signature.names == ["to", "amount", "memo"])
        #expect(move.signature.minimum == 2)
        #expect(move.signature.maximum == 3)
        let total = try #require(info.members["total"])
        #expect(total.signature.maximum == 0)
        if case .value(let type) = total.result {
            #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
        } else {
            Issue.record("total should return a value")
        }
    }
}

@Suite("Typed exposed methods in editor annotations")
struct LuaTypedMethodAnnotationTests {
    /// A typed method's parameters carry their types into the manifest and
    /// from there into the `---@param` lines; a method that reads its own
    /// arguments keeps `any`.
    @Test func typedParametersAreAnnotatedWithTheirTypes() throws {
        let state = try LuaState()
        state.expose(
            accountType()
                .method("untyped", arguments: ["value"]) { _, args in try args.get(1, as: Int.self) }
                .method("unnamed") { (_: Account, flag: Bool, ratio: Double) in flag ? ratio : 0 })
        let types = state.withStack { $0.manifestExposedTypes }
        let account = try #require(types.first { $0.name == "Account" })
        let move = try #require(account.methods.first { $0.name == "move" })
        #expect(move.arguments == [
            AppManifest.Argument(name: "to", optional: false, type: "Account"),
            AppManifest.Argument(name: "amount", optional: false, type: "Int"),
            AppManifest.Argument(name: "memo", optional: true, type: "Optional<String>"),
        ])
        let description = LuaTypeDescription(account, typeNames: ["Account"])
        func parameters(_ name: String) throws -> [String] {
            let method = try #require(description.methods.first { $0.name == name })
            return try #require(method.parameters).map { "\($0.name)\($0.optional ? "?" : ""): \($0.type)" }
        }
        #expect(try parameters("move") == ["to: Account", "amount: integer", "memo?: string?"])
        #expect(try parameters("untyped") == ["value: any"])
        #expect(try parameters("unnamed") == ["arg1: boolean", "arg2: number"])
        #expect(try parameters("total") == [])
        // The manifest round-trips through JSON with the types.
        let json = try JSONEncoder().encode(account)
        #expect(try JSONDecoder().decode(AppManifest.ExposedType.self, from: json) == account)
    }
}

@Suite("Typed exposed methods: declared names")
struct LuaTypedMethodNameTests {
    /// Names that do not match the parameters never make a call fail that
    /// the parameters accept, and messages stay sensible.
    @Test func mismatchedNamesOnlyNameWhatTheyCan() throws {
        let state = try LuaState()
        state.expose(
            LuaExposedType(Account.self)
                .constructor { _ in Account() }
                .method("few", arguments: ["a"]) { (_: Account, a: Int, b: Int) in a + b }
                .method("many", arguments: ["a", "b", "c"]) { (_: Account, a: Int) in a })
        #expect(try state.run("local o = Account.new() return o:few(1, 2), o:many(5)") == [.integer(3), .integer(5)])
        let second = try state.failure(running: "Account.new():few(1, 'x')", name: "@n.lua")
        #expect(second.message == "n.lua:1: Account.few: bad argument #2 (expected integer, got string)")
        let extra = try state.failure(running: "Account.new():many(1, 2)", name: "@n.lua")
        #expect(extra.message == "n.lua:1: Account.many: expected 1 argument, got 2")
    }
}
