import BloodMagicLua

extension FuzzTargets {
    /// The limits the Lua code that builds a table runs under.
    public static let tableLimits = LuaLimits(maxMemory: 8 << 20, maxInstructions: 500_000)

    /// Target `table`: the bytes are Lua code that makes a value (as the
    /// expression `return <bytes>`, or, when that does not compile, as a
    /// chunk whose first result is used), run in a sandboxed, limited state.
    /// The value is then decoded into ``FuzzDocument``, `[FuzzDocument]` and
    /// `[String: FuzzDocument]`, and rendered by the pretty printer.
    ///
    /// Invariants: decoding ends with a value or a ``LuaError`` (never a
    /// crash, whatever the nesting or cycles), and a decoded value encodes
    /// back into Lua and decodes again to an equal value.
    @Sendable
    public static func decodeTable(_ bytes: UnsafeRawBufferPointer) -> FuzzResult {
        var result = FuzzResult(outcome: "ok")
        let state: LuaState
        do {
            state = try LuaState(libraries: .safe, limits: tableLimits)
        } catch {
            result.violations.append("a limited LuaState could not be made: \(error)")
            return result
        }
        state.withStack { lua in
            do throws(LuaError) {
                try loadValueCode(bytes, into: lua)
                try lua.call(arguments: 0, results: 1)
            } catch {
                result.outcome = "no value: \(error.message)"
                return
            }
            var outcomes: [String] = []
            outcomes.append(roundTrip(FuzzDocument.self, lua, &result))
            outcomes.append(roundTrip([FuzzDocument].self, lua, &result))
            outcomes.append(roundTrip([String: FuzzDocument].self, lua, &result))
            do throws(LuaError) {
                _ = try LuaPrettyPrinter().render(at: -1, in: lua) as String
                outcomes.append("rendered")
            } catch {
                outcomes.append("not rendered: \(error.message)")
            }
            result.outcome = outcomes.joined(separator: "; ")
        }
        return result
    }

    /// Pushes the function that makes the value: `return <bytes>`, or the
    /// bytes as a chunk when the expression does not compile.
    private static func loadValueCode(_ bytes: UnsafeRawBufferPointer, into lua: LuaStack) throws(LuaError) {
        let expression = Array("return ".utf8) + Array(bytes)
        let loaded = expression.withUnsafeBytes { raw in
            Result { () throws(LuaError) in try lua.load(bytes: raw, name: "=table") }
        }
        if case .failure(let error) = loaded {
            guard error.kind == .syntax else { throw error }
            try lua.load(bytes: bytes, name: "=table")
        }
    }

    /// Decodes the value on top of the stack as `T`; when that works, encodes
    /// it, decodes the encoding, and checks that the two are equal.
    private static func roundTrip<T: Codable & Equatable>(
        _ type: T.Type, _ lua: LuaStack, _ result: inout FuzzResult
    ) -> String {
        let decoded: T
        do throws(LuaError) {
            decoded = try lua.decode(T.self, at: -1)
        } catch {
            return "\(T.self): \(error.message)"
        }
        do throws(LuaError) {
            try LuaEncoder().encode(decoded, into: lua)
            defer { lua.pop() }
            let again = try lua.decode(T.self, at: -1)
            result.check(again == decoded, "\(T.self) changed on a round trip through Lua: \(decoded) became \(again)")
        } catch {
            result.violations.append("a decoded \(T.self) did not go back through Lua: \(error)")
        }
        return "\(T.self): decoded"
    }
}
