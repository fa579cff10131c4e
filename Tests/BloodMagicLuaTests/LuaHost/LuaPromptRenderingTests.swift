import BloodMagicLua
import Testing

/// What the prompt prints for a value: plain tables through the pretty
/// printer (limited in depth and entries, short ones on one line), other
/// values and tables that describe themselves through `tostring`.
@Suite("Prompt rendering")
struct LuaPromptRenderingTests {
    private func show(_ line: String) throws -> [String] {
        let session = LuaInteractiveSession(state: try LuaState())
        guard case .values(let values) = session.feed(line) else {
            Issue.record("\(line) did not give values")
            return []
        }
        return values
    }

    @Test func shortTablesFitOnOneLine() throws {
        #expect(try show("return {1, 2, 3}") == ["{ 1, 2, 3 }"])
        #expect(try show("return {a = 1, b = {c = 'x'}, [10] = true}") == [#"{ a = 1, b = { c = "x" }, [10] = true }"#])
        #expect(try show("return {}") == ["{}"])
    }

    @Test func longTablesShowTheirFirstEntriesAndCountTheRest() throws {
        let shown = try #require(try show("local t = {} for i = 1, 100 do t[i] = i end return t").first)
        let lines = shown.split(separator: "\n")
        #expect(lines.first == "{")
        #expect(lines.contains("  1,"))
        #expect(lines.contains("  40,"))
        #expect(!lines.contains("  41,"))
        #expect(lines.contains("  -- 60 more"))
        #expect(lines.last == "}")
    }

    @Test func deepTablesStopAtTheDepthLimit() throws {
        #expect(try show("return {x = {y = {z = {w = {v = 1}}}}}") == ["{ x = { y = { z = { w = {...} } } } }"])
    }

    @Test func otherValuesAndSelfDescribingTablesUseTostring() throws {
        #expect(try show("return 's', 1, nil, true") == ["s", "1", "nil", "true"])
        #expect(try show("return setmetatable({}, {__tostring = function() return 'custom' end})") == ["custom"])
        let named = try #require(try show("return setmetatable({}, {__name = 'Thing'})").first)
        #expect(named.hasPrefix("Thing: "))
    }

    @Test func aTableTooBigToCopyUnderTheMemoryLimitIsAnErrorNotACrash() throws {
        let state = try LuaState(limits: LuaLimits(maxMemory: 4 << 20))
        let session = LuaInteractiveSession(state: state)
        // Fill most of the budget with one table, then ask for it.
        guard case .values = session.feed("t = {} for i = 1, 1e7 do local ok = pcall(function() t[i] = i end) if not ok then break end end") else {
            Issue.record("filling the table failed outright")
            return
        }
        var outcome = session.feed("return t")
        if case .values = outcome {
            // The copy fit after all: fill again to the brim and retry.
            _ = session.feed("for i = #t + 1, 1e7 do local ok = pcall(function() t[i] = i end) if not ok then break end end")
            outcome = session.feed("return t")
        }
        if case .failure(let error) = outcome {
            #expect(error.kind == .memoryLimit || error.message.contains("memory"))
        }
        // Either way the state is still usable.
        #expect(session.feed("return 1 + 1") == .values(["2"]))
    }
}
