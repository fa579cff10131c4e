import CLua
import CLuaHost

/// The evaluation side of a read-eval-print loop, as `lua`'s own REPL does
/// it: a line is first tried as an expression (`return <line>`) so that its
/// values are printed; input that ends inside an unfinished statement asks
/// for more lines; an error is reported and the session goes on.
///
/// The terminal side (prompts, line editing, history) belongs to the caller.
public final class LuaInteractiveSession {
    /// What feeding one line produced.
    public enum Outcome: Equatable, Sendable {
        /// The input so far is an unfinished chunk: prompt for more.
        case needsMore
        /// The chunk ran; these are its results rendered with `tostring`
        /// (empty when it returned nothing).
        case values([String])
        /// The chunk failed to compile or run; the message is Lua's.
        case failure(LuaError)
    }

    /// The state the session evaluates in.
    public let state: LuaState
    /// The chunk name used in error messages.
    public let chunkName: String
    private var pending: [String] = []

    /// Creates a session on `state`; errors name chunks `chunkName` (`=stdin` by default).
    public init(state: LuaState, chunkName: String = "=stdin") {
        self.state = state
        self.chunkName = chunkName
    }

    /// Whether lines are being collected for an unfinished chunk.
    public var isContinuing: Bool { !pending.isEmpty }

    /// Drops an unfinished chunk (after Ctrl-C, say).
    public func cancel() { pending.removeAll() }

    /// Ends the input: an unfinished chunk is reported as the syntax error it is.
    public func finish() -> LuaError? {
        guard !pending.isEmpty else { return nil }
        let source = pending.joined(separator: "\n")
        pending.removeAll()
        return state.withStack { lua -> LuaError? in
            do throws(LuaError) {
                try lua.load(source, name: chunkName)
                lua.pop()
                return nil
            } catch {
                return error
            }
        }
    }

    /// Feeds one line of input.
    public func feed(_ line: String) -> Outcome {
        pending.append(line)
        let source = pending.joined(separator: "\n")
        return state.withStack { lua -> Outcome in
            // First as an expression, so `1 + 1` prints 2 — but only for a
            // single fresh line, as lua.c does.
            if pending.count == 1, (try? lua.load("return " + source, name: chunkName)) != nil {
                pending.removeAll()
                return run(lua)
            }
            do throws(LuaError) {
                try lua.load(source, name: chunkName)
            } catch {
                if error.kind == .syntax, error.message.hasSuffix("<eof>") {
                    return .needsMore
                }
                pending.removeAll()
                return .failure(error)
            }
            pending.removeAll()
            return run(lua)
        }
    }

    /// A result as the prompt shows it: a plain table expanded by
    /// ``LuaPrettyPrinter/interactive`` (depth and entries limited, short
    /// ones on one line); anything else, and tables with `__tostring` or
    /// `__name`, by `tostring`, as `lua` does.
    private func render(at index: Int32, _ lua: LuaStack) throws(LuaError) -> String {
        try lua.requireSpace(2)
        lua_pushcclosure(lua.pointer, bm_protected_shows_itself, 0)
        lua_pushvalue(lua.pointer, index)
        try lua.call(arguments: 1, results: 1)
        let itself = lua_toboolean(lua.pointer, -1) != 0
        lua.pop()
        return itself ? try lua.describe(at: index) : try LuaPrettyPrinter.interactive.render(at: index, in: lua)
    }

    /// Calls the loaded chunk and renders its results.
    private func run(_ lua: LuaStack) -> Outcome {
        let base = lua.top - 1
        do throws(LuaError) {
            try lua.call(arguments: 0, results: LUA_MULTRET)
        } catch {
            return .failure(error)
        }
        var rendered: [String] = []
        let count = lua.top - base
        for i in 0..<count {
            do throws(LuaError) {
                rendered.append(try render(at: base + 1 + i, lua))
            } catch {
                lua.setTop(base)
                return .failure(error)
            }
        }
        lua.setTop(base)
        return .values(rendered)
    }
}
