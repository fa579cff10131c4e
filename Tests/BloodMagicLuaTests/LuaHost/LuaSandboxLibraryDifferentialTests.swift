import Testing
@testable import BloodMagicLua

/// The sandbox's own string and table functions (CLuaHost) against Lua's:
/// the same generated inputs run in an unsafe state (Lua's library as it is)
/// and in a sandboxed one, and every result and error must be the same.
@Suite("Sandbox library matches Lua's")
struct LuaSandboxLibraryDifferentialTests {
    /// Runs `script` in both states and compares the transcripts it returns,
    /// line by line, so that a difference names its input.
    private func compare(_ script: String, minimumLines: Int) throws {
        let stock = try LuaState(libraries: .unsafe).evaluate(script, as: String.self)
        let ours = try LuaState(libraries: .safe).evaluate(script, as: String.self)
        let stockLines = stock.split(separator: "\n", omittingEmptySubsequences: false)
        let ourLines = ours.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(stockLines.count >= minimumLines, "the generator should produce many cases")
        #expect(stockLines.count == ourLines.count)
        var differences = 0
        for (index, (expected, actual)) in zip(stockLines, ourLines).enumerated() where expected != actual {
            differences += 1
            if differences <= 5 {
                Issue.record("case \(index + 1): Lua gives \(String(reflecting: String(expected))), the sandbox \(String(reflecting: String(actual)))")
            }
        }
        #expect(differences == 0)
    }

    /// Serializes any values as one line (bytes escaped, so that NULs and
    /// newlines stay visible), shared by the generators below.
    private static let serializer = #"""
    local function show(...)
      local out = { tostring(select("#", ...)) }
      for i = 1, select("#", ...) do
        local v = select(i, ...)
        if type(v) == "string" then
          out[#out + 1] = string.format("%q", v):gsub("\n", "n")
        elseif type(v) == "table" or type(v) == "function" then
          out[#out + 1] = type(v)  -- addresses differ between states
        else
          out[#out + 1] = tostring(v)
        end
      end
      return table.concat(out, " ")
    end
    local function try(f, ...) return show(pcall(f, ...)) end

    """#

    @Test func patternFunctionsGiveLuasResultsAndErrors() throws {
        let script = Self.serializer + #"""
        math.randomseed(20240611)
        local atoms = { "a", "b", "c", ".", "%a", "%d", "%s", "%w", "%p", "%A", "%S", "%x", "%z", "%.", "%%",
          "[abc]", "[^a]", "[a-c]", "[%d_]", "[]]", "[a-]", "[^%s%d]", " ", "(", ")", "1", "_", "x" }
        local quantifiers = { "", "", "", "*", "+", "-", "?" }
        local specials = { "()", "%b()", "%bab", "%f[%w]", "%f[%A]", "%1", "%2", "$", "^", "(%w+)", "(.-)", "%0" }
        local alphabet = { "a", "b", "c", "(", ")", ".", " ", "1", "_", "x", "\0", "%", "\n" }
        local function pattern()
          local parts = {}
          if math.random() < 0.2 then parts[1] = "^" end
          for _ = 1, math.random(1, 5) do
            local r = math.random()
            if r < 0.15 then
              parts[#parts + 1] = specials[math.random(#specials)]
            elseif r < 0.25 then
              parts[#parts + 1] = "(" .. atoms[math.random(#atoms)] .. quantifiers[math.random(#quantifiers)] .. ")"
            else
              parts[#parts + 1] = atoms[math.random(#atoms)] .. quantifiers[math.random(#quantifiers)]
            end
          end
          if math.random() < 0.15 then parts[#parts + 1] = "$" end
          local p = table.concat(parts)
          if math.random() < 0.1 then p = p:sub(1, math.random(0, #p)) end -- often malformed
          return p
        end
        local function subject()
          local chars = {}
          for i = 1, math.random(0, 12) do chars[i] = alphabet[math.random(#alphabet)] end
          return table.concat(chars)
        end
        local lookup = setmetatable({}, { __index = function(_, k) return type(k) == "string" and #k % 2 == 0 and ("<" .. k .. ">") or nil end })
        local lines = {}
        for _ = 1, 2500 do
          local p, s = pattern(), subject()
          local init = ({ nil, 1, 2, -1, -3, 0, 20 })[math.random(7)]
          lines[#lines + 1] = try(string.find, s, p, init)
          lines[#lines + 1] = try(string.find, s, p, init, true)
          lines[#lines + 1] = try(string.match, s, p, init)
          lines[#lines + 1] = try(string.gsub, s, p, "[%0|%1]")
          lines[#lines + 1] = try(string.gsub, s, p, lookup, math.random(0, 3))
          lines[#lines + 1] = try(string.gsub, s, p, function(...) return select("#", ...) % 2 == 0 and "F" or nil end)
          lines[#lines + 1] = try(function()
            local out = {}
            for a, b in string.gmatch(s, p, init) do
              out[#out + 1] = show(a, b)
              if #out > 50 then break end
            end
            return table.concat(out, ";")
          end)
        end
        -- Replacement strings, with and without captures.
        for _, r in ipairs { "%%", "%0%0", "%1", "%2", "%", "x%", "%a", "", 7, 1.5 } do
          lines[#lines + 1] = try(string.gsub, "hello world", "(o)", r)
          lines[#lines + 1] = try(string.gsub, "hello world", "o", r)
          lines[#lines + 1] = try(string.gsub, "hello world", "()", r)
        end
        lines[#lines + 1] = try(string.gsub, "abc", "b", {})
        lines[#lines + 1] = try(string.gsub, "abc", "b", { b = {} })
        lines[#lines + 1] = try(string.gsub, "abc", "b", { b = false })
        lines[#lines + 1] = try(string.gsub, "abc", "b")
        lines[#lines + 1] = try(string.gsub, "abc", "b", true)
        lines[#lines + 1] = try(string.find, "abc", string.rep("(", 33) .. "a" .. string.rep(")", 33))
        lines[#lines + 1] = try(string.find, string.rep("a", 300), string.rep("a?", 250) .. "b")
        lines[#lines + 1] = try(string.find, "abc", nil)
        lines[#lines + 1] = try(string.find, nil, "a")
        lines[#lines + 1] = try(string.find, "abc", "b", 1.5)
        lines[#lines + 1] = try(string.gmatch, "abc")
        lines[#lines + 1] = try(string.rep, "ab", 3, ",")
        lines[#lines + 1] = try(string.rep, "", 5, "")  -- (Lua's own loops n times for an empty result)
        lines[#lines + 1] = try(string.rep, "x", 0)
        lines[#lines + 1] = try(string.rep, "x", -3, "y")
        lines[#lines + 1] = try(string.rep, "x", 2^31)
        lines[#lines + 1] = try(string.rep, "ab", 2, "")
        lines[#lines + 1] = try(string.rep)
        return table.concat(lines, "\n")
        """#
        try compare(script, minimumLines: 17_000)
    }

    @Test func tableFunctionsGiveLuasResultsAndErrors() throws {
        let script = Self.serializer + #"""
        local function dump(t)
          local out = {}
          for i = -1, 8 do out[#out + 1] = tostring(rawget(t, i)) end
          return table.concat(out, ",")
        end
        local function list() return { "a", "b", "c", "d", "e" } end
        local lines = {}
        local function case(f, ...)
          local t = list()
          local args = table.pack(...)
          for i = 1, args.n do if args[i] == "T" then args[i] = t end end
          lines[#lines + 1] = try(f, table.unpack(args, 1, args.n)) .. " | " .. dump(t)
        end
        for _, sep in ipairs { "", ",", "--" } do
          for i = -1, 7 do
            for j = -1, 7 do case(table.concat, "T", sep, i, j) end
          end
        end
        case(table.concat, "T")
        case(table.concat, { 1, 2.5, "x" }, "+")
        case(table.concat, { 1, {}, 3 })
        case(table.concat, { true })
        case(table.concat, nil)
        case(table.concat, "T", {})
        for pos = -1, 8 do case(table.insert, "T", pos, "new") end
        case(table.insert, "T", "new")
        case(table.insert, "T")
        case(table.insert, "T", 1, 2, 3)
        case(table.insert, nil, 1)
        case(table.insert, "T", 1.5, "x")
        for pos = -1, 8 do case(table.remove, "T", pos) end
        case(table.remove, "T")
        case(table.remove, {})
        case(table.remove, {}, 0)
        case(table.remove, nil)
        for f = -1, 6 do
          for e = -1, 6 do
            for t = -1, 7 do case(table.move, "T", f, e, t) end
            case(table.move, "T", f, e, 2, {})
          end
        end
        case(table.move, "T", 1, math.maxinteger, 2)
        case(table.move, "T", -1, math.maxinteger, 2)
        case(table.move, "T", 1, 3, math.maxinteger)
        case(table.move, "T", 1, 2, 3, "notatable")
        case(table.move, "T")
        for i = -1, 7 do
          for j = -1, 7 do case(table.unpack, "T", i, j) end
        end
        case(table.unpack, "T")
        case(table.unpack, "T", 1, math.maxinteger)
        case(table.unpack, "T", math.mininteger, math.maxinteger)
        case(table.unpack, nil)
        case(table.sort, "T")
        case(table.sort, "T", function(a, b) return a > b end)
        case(table.sort, { 3, 1, "x" })
        case(table.sort, "T", 3)
        case(table.sort, nil)
        case(table.sort, { 5, 3, 8, 1, 9, 2 }, function(a, b) return true end)
        local proxy = setmetatable({}, {
          __index = function(_, k) return "p" .. k end,
          __newindex = function() end,
          __len = function() return 4 end,
        })
        case(table.concat, proxy, ",")
        case(table.insert, proxy, 2, "x")
        case(table.remove, proxy, 1)
        case(table.move, proxy, 1, 3, 2, {})
        case(table.unpack, proxy)
        return table.concat(lines, "\n")
        """#
        try compare(script, minimumLines: 700)
    }

    /// Issue 25: the front-ends that charge the work of Lua's utf8 functions,
    /// string.byte, format, pack, unpack, tonumber and load run Lua's own
    /// functions; utf8.len runs them on slices of a long string, whose ends
    /// must never change a count or the position of an error.
    @Test func chargedFrontEndsGiveLuasResultsAndErrors() throws {
        let script = Self.serializer + #"""
        math.randomseed(20251126)
        local valid = { "a", "z", " ", "é", "€", "𝄞", "ß" }
        local invalid = { "\x80", "\xbf", "\xc3", "\xe2\x82", "\xf0\x9d", "\xff", "\xfe",
          "\xf8\x88\x80\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\x80" }
        local function text(n)
          local parts, size = {}, 0
          while size < n do
            local piece = valid[math.random(#valid)]
            parts[#parts + 1] = piece
            size = size + #piece
          end
          return table.concat(parts)
        end
        local lines = {}
        -- Long strings: utf8.len over slices of 64 KiB.
        for case = 1, 40 do
          local s = text(case % 2 == 0 and 70000 or 140000)
          if case % 4 ~= 0 then -- one bad sequence, often just around a slice's end
            local at = case % 4 == 1 and math.random(1, #s) or 65536 * math.random(1, 2) + math.random(-6, 6)
            at = math.max(0, math.min(#s, at))
            s = s:sub(1, at) .. invalid[math.random(#invalid)] .. s:sub(at + 1)
          end
          if case % 5 == 0 then -- a run of continuation bytes across a slice's end
            local at = 65536 - math.random(0, 8)
            s = s:sub(1, at) .. ("\x80"):rep(math.random(1, 12)) .. s:sub(at + 1)
          end
          for _, lax in ipairs { false, true } do
            lines[#lines + 1] = try(utf8.len, s, 1, -1, lax)
            lines[#lines + 1] = try(utf8.len, s, math.random(1, 200), -1, lax)
            lines[#lines + 1] = try(utf8.len, s, math.random(-#s - 2, #s + 2), math.random(-#s - 2, #s + 2), lax)
            lines[#lines + 1] = try(utf8.len, s, 65530 + math.random(0, 12), -math.random(1, 100), lax)
          end
        end
        -- Short strings, every argument shape.
        local short = { "", "abc", "héllo", "\x80abc", "ab\xff", "€€", "a\0b", "𝄞x", "\xf8\x88\x80\x80\x80", "12", " 0x1F ", "1e3" }
        local positions = { -10, -1, 0, 1, 2, 3, 100 }
        for _, s in ipairs(short) do
          for _, n in ipairs { -3, -1, 0, 1, 2, 5 } do
            for _, i in ipairs(positions) do lines[#lines + 1] = try(utf8.offset, s, n, i) end
            lines[#lines + 1] = try(utf8.offset, s, n)
          end
          for _, i in ipairs(positions) do
            for _, j in ipairs(positions) do
              lines[#lines + 1] = try(utf8.codepoint, s, i, j)
              lines[#lines + 1] = try(utf8.codepoint, s, i, j, true)
              lines[#lines + 1] = try(utf8.len, s, i, j)
              lines[#lines + 1] = try(string.byte, s, i, j)
            end
            lines[#lines + 1] = try(string.byte, s, i)
          end
          for _, lax in ipairs { false, true } do
            lines[#lines + 1] = try(function()
              local out = {}
              for p, c in utf8.codes(s, lax) do out[#out + 1] = p .. ":" .. c end
              return table.concat(out, ",")
            end)
          end
          local next = utf8.codes("")
          for _, k in ipairs { -1, 0, 1, 2, 3, 10 } do lines[#lines + 1] = try(next, s, k) end
          for _, f in ipairs { "z", "zz", "c1z", "s1", "i2z", "B", "" } do
            lines[#lines + 1] = try(string.unpack, f, s)
            lines[#lines + 1] = try(string.unpack, f, s, 2)
            lines[#lines + 1] = try(string.unpack, f, s, -1)
          end
          lines[#lines + 1] = try(string.format, "%s|%.1s|%5s|%q", s, s, s, s)
          lines[#lines + 1] = try(string.pack, "z", s)
          lines[#lines + 1] = try(string.pack, "s1", s)
          lines[#lines + 1] = try(tonumber, s)
          lines[#lines + 1] = try(tonumber, s, 16)
          lines[#lines + 1] = try(load, s)
          lines[#lines + 1] = try(load, "return " .. s)
        end
        for _, args in ipairs {
          {}, { 42 }, { "abc", "x" }, { "abc", 1.5 }, { "abc", 1, 2.5 }, { {} }, { "abc", math.mininteger, math.maxinteger },
        } do
          for _, f in ipairs { utf8.len, utf8.offset, utf8.codepoint, utf8.codes, string.byte, string.unpack, string.format, tonumber } do
            lines[#lines + 1] = try(f, table.unpack(args))
          end
        end
        lines[#lines + 1] = try(load, function() return nil end)
        lines[#lines + 1] = try(load, function() return {} end)
        local pieces = { "return ", "1 ", "+ 41" }
        lines[#lines + 1] = show(load(function() return table.remove(pieces, 1) end)())
        lines[#lines + 1] = try(collectgarbage, "isrunning")
        lines[#lines + 1] = try(collectgarbage, "bogus")
        lines[#lines + 1] = try(collectgarbage, "step", "x")
        -- Bytes that are not ASCII as \ddd: the transcript is read as UTF-8.
        return (table.concat(lines, "\n"):gsub("[\128-\255]", function(c) return "\\" .. c:byte() end))
        """#
        try compare(script, minimumLines: 3_800)
    }
}
