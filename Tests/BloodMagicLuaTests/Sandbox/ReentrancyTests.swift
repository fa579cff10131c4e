import Foundation
import TestSupport
import Testing
@testable import BloodMagicLua

/// Issue 25, "Memory safety in the sandbox's C library": a library function
/// keeps no state across a point where a finalizer, a metamethod, a callback
/// or a coroutine can call it (or anything else) again. The scripts run in
/// `bmlua` children, because the old code wrote onto the wrong thread or
/// read a freed one: a crash must fail the test, not end the suite.
@Suite("Sandbox: re-entrancy")
struct ReentrancyTests {
    /// Runs `script` with `bmlua` (with Lua's own library when `unsafe`)
    /// and returns its output; the child must exit normally with status 0.
    func runInChild(_ script: String, unsafe: Bool = false) throws -> String {
        let dir = try makeScripts(["reentry.lua": script])
        let result = try bmlua(
            (unsafe ? ["--unsafe"] : []) + [ScriptPath.join(dir, "reentry.lua")], environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(result.status == 0, "bmlua\(unsafe ? " --unsafe" : "") died or failed (status \(result.status)): \(result.stderr)")
        return result.stdout
    }

    /// The differential test: the same calls, re-entered by finalizers made
    /// by the thousand (so that collections run inside the calls), by
    /// callbacks and by metamethods, give what Lua's own functions give.
    /// Lines starting with '#' count how often a finalizer ran inside a
    /// call, which depends on when collections run.
    @Test func reenteredLibraryCallsAgreeWithLua() throws {
        let stock = try runInChild(Self.differentialScript, unsafe: true)
        let ours = try runInChild(Self.differentialScript)
        func compared(_ output: String) -> [Substring] {
            output.split(separator: "\n").filter { !$0.hasPrefix("#") }
        }
        #expect(compared(stock).count == 14, "\(stock)")
        #expect(compared(ours) == compared(stock))
        #expect(ours.contains("finalizer checks failed\t0\t"), "\(ours)")
        // The finalizers did run inside the calls.
        let counts = try #require(ours.split(separator: "\n").first { $0.hasPrefix("# finalizers ran") })
        let reentered = Int(counts.split(separator: "\t").last ?? "") ?? 0
        #expect(reentered > 1000, "\(counts)")
    }

    /// A `string.gmatch` iterator called again by a finalizer (from a
    /// coroutine of its own) while it pushes a capture: before, the outer
    /// call went on with the inner call's thread and captures, and returned
    /// values it never pushed (then crashed). Each call must return one
    /// whole match, and every match must come once. Lua 5.4's own gmatch
    /// shares its match state the same way (it gives wrong values here), so
    /// the reference is the iterator's meaning, not Lua's result.
    @Test func gmatchReenteredByAFinalizerKeepsItsPlace() throws {
        let output = try runInChild(#"""
            collectgarbage("incremental", 50, 400)
            local N = 2000
            local parts = {}
            for i = 1, N do parts[i] = string.format("%05d", i):rep(8, ",") end
            local it = string.gmatch(table.concat(parts, ";"), string.rep("(%d+),", 7) .. "(%d+)")
            local results = {}
            local finalizable = { __gc = function()
              results[#results + 1] = table.pack(coroutine.wrap(function() return it() end)())
            end }
            while true do
              setmetatable({}, finalizable)
              local r = table.pack(it())
              results[#results + 1] = r
              if r.n == 0 then break end
            end
            collectgarbage()
            local seen, wrong, calls, repeated, nested, last = {}, 0, 0, 0, 0, 0
            for _, r in ipairs(results) do
              if r.n > 0 then
                calls = calls + 1
                local whole = r.n == 8 and type(r[1]) == "string" and r[1]:match("^%d%d%d%d%d$") ~= nil
                for j = 2, r.n do whole = whole and r[j] == r[1] end
                if not whole then
                  wrong = wrong + 1
                else
                  local k = tonumber(r[1])
                  if seen[k] then repeated = repeated + 1 end
                  seen[k] = true
                  -- A call made inside another returns first, with the next match.
                  if k < last then nested = nested + 1 end
                  last = k
                end
              end
            end
            local missing = 0
            for i = 1, N do if not seen[i] then missing = missing + 1 end end
            print(("calls %d wrong %d missing %d repeated %d"):format(calls, wrong, missing, repeated))
            print("nested", nested)
            """#)
        let lines = output.split(separator: "\n")
        #expect(lines.first == "calls 2000 wrong 0 missing 0 repeated 0", "\(output)")
        let nested = Int(lines.last?.split(separator: "\t").last ?? "") ?? 0
        #expect(nested > 100, "the iterator should have been re-entered while it pushed captures: \(output)")
    }

    /// `coroutine.resume` explains a failed coroutine's message with that
    /// coroutine's stack, after the call that consumed its only reference
    /// (`resume(create(f))`): a collection during the explanation freed it,
    /// and the message string allocated next took its place, so the walk
    /// followed pointers the script wrote ("AAAA..."). The coroutine stays
    /// referenced until the explanation is done.
    @Test func resumeKeepsTheCoroutineItExplains() throws {
        let output = try runInChild(#"""
            collectgarbage("generational", 1, 100)
            math.randomseed(25)
            local resume, create, rep, random = coroutine.resume, coroutine.create, string.rep, math.random
            -- With its position cut, the rest is a string as big as a coroutine.
            local message = "[bm]:1: stack overflow " .. rep("A", 170)
            local function fail() error(message, 0) end
            local seen = {}
            for i = 1, 20000 do
              local ok, explained = resume(create(fail))
              seen[tostring(ok) .. " " .. explained:match("[^/]*$"):sub(1, 40)] = true
              local _ = rep("p", random(0, 1500))
            end
            for text in pairs(seen) do print(text) end
            """#)
        // One message, with the coroutine's own position for the one cut.
        #expect(output == "false reentry.lua:6: stack overflow AAAAAAAAAA\n")
    }

    /// A finalizer that runs outside any run (here while Swift compiles the
    /// next chunk) and calls Lua again through Swift (a resolver): the
    /// nested call started a run of its own, and its end disarmed the budget
    /// the rest of the finalizer ran under, which then ran unbounded.
    @Test func aFinalizerThatCallsLuaThroughSwiftKeepsItsBudget() throws {
        let host = try makeHost(limits: LuaLimits(maxInstructions: 1_000_000))
        try host.lua("""
            bm.resolver(function(request) return 42 end)
            local Holder = bm.class('Holder', { x = bm.spell.lazy('Missing') })
            running = false
            local keep = {}
            for i = 1, 200 do
              keep[i] = setmetatable({}, { __gc = function()
                if spun then return end
                spun, inRun = 0, running
                resolved = Holder.new().x
                while spun < 50000000 do spun = spun + 1 end
              end })
            end
            """, file: "fin.lua")
        // Compiling a big chunk allocates enough for the tables above to be
        // collected: their finalizers run then, outside any run.
        let big = "running = true\nlocal t = {" + (1...20000).map { "{\($0)}" }.joined(separator: ",") + "}"
        try host.lua(big, file: "big.lua")
        let state = try host.lua("return spun, inRun, resolved")
        #expect(state[1] == .boolean(false), "the finalizer should run while Swift compiles: \(state)")
        #expect(state[2] == .integer(42))
        guard case .integer(let spun) = state[0] else {
            Issue.record("the finalizer did not run: \(state)")
            return
        }
        #expect(spun < 1_000_000, "the finalizer went on for \(spun) iterations after the nested call")
    }

    /// Finalizers that run while the state closes (its host released, the
    /// registry still alive) and call bm: the module reached the state Swift
    /// was deinitializing, a trap (found by the fuzzer from the re-entrancy
    /// seeds). bm refuses to run once the state closes; the finalizer's error
    /// is a warning, and the close goes on.
    @Test func finalizersRunAtCloseCannotReachSwift() async {
        await #expect(processExitsWith: .success) {
            let registry = Registry()
            do {
                let host = try ScriptHost(options: .init(registry: registry, preferences: InMemoryPreferenceStore()))
                try host.lua("""
                    local Box = bm.class('Box', { dep = bm.spell.lazy('Dep') })
                    bm.initializer { type = 'Dep', init = function() return 1 end }
                    held = {}
                    for i = 1, 50 do
                      held[i] = setmetatable({}, { __gc = function()
                        bm.initializer { type = 'T' .. i, init = function() return i end }
                        local _ = Box.new().dep, bm.entries(), bm.resolve('Dep')
                      end })
                    end
                    """)
                host.unload()
            }
            // The host is gone: its state closed, and ran the finalizers.
            precondition(registry.entries.count <= 1, "a finalizer registered while the state closed")
        }
    }

    /// Swift objects that a Swift function hands to a finalizer run while the
    /// state closes (an exposed object, a Swift closure): Lua runs no `__gc`
    /// for an object made then, so their retains leaked. They are released
    /// once the close is done.
    @Test func objectsMadeForFinalizersAtCloseAreReleased() throws {
        let counter = LiveCounter()
        do {
            let state = try LuaState()
            state.expose(LuaExposedType(Tracked.self).constructor { _ in Tracked(counter) })
            state.withStack { lua in
                lua.register("make_closure") { lua in
                    let tracked = Tracked(counter)
                    lua.push(function: { _ in withExtendedLifetime(tracked) { 0 } })
                    return 1
                }
            }
            _ = try state.run("""
                held = {}
                for i = 1, 20 do
                  held[i] = setmetatable({}, { __gc = function()
                    kept = { Tracked.new(), make_closure(), kept }
                  end })
                end
                """, name: "=close")
            #expect(counter.live == 0)
        }  // the state closes here, and runs the finalizers
        #expect(counter.live == 0)
    }

    /// Finalizers, callbacks and metamethods that call the function they run
    /// inside (see reenteredLibraryCallsAgreeWithLua).
    static let differentialScript = #"""
        collectgarbage("incremental", 50, 400)
        local lines = {}
        local function emit(...)
          local parts = table.pack(...)
          for i = 1, parts.n do parts[i] = tostring(parts[i]) end
          lines[#lines + 1] = table.concat(parts, "\t")
        end
        local function digest(s)
          local h = 0
          for i = 1, #s do h = (h * 31 + s:byte(i)) % 4294967296 end
          return #s .. ":" .. h
        end

        -- What every finalizer does: the same functions, on data of its own,
        -- with known answers. `active` is above 0 while the main code is
        -- inside a call.
        local active, runs, reentered, wrong = 0, 0, 0, {}
        local function check(what, ok) if not ok then wrong[#wrong + 1] = what end end
        local subject = "alpha=1, beta=22, gamma=333"
        local function finalize()
          runs = runs + 1
          if active > 0 then reentered = reentered + 1 end
          check("gsub", subject:gsub("(%w+)=(%w+)", "%2=%1") == "1=alpha, 22=beta, 333=gamma")
          check("gsub fn", subject:gsub("%a+", string.upper) == "ALPHA=1, BETA=22, GAMMA=333")
          check("match", table.concat({ subject:match("(%a+)=(%d+), (%a+)") }, "|") == "alpha|1|beta")
          local s, e, c = subject:find("(%d+)", 1)
          check("find", s == 7 and e == 7 and c == "1")
          local pairs_seen = {}
          for k, v in subject:gmatch("(%a+)=(%d+)") do pairs_seen[#pairs_seen + 1] = k .. v end
          check("gmatch", table.concat(pairs_seen, ",") == "alpha1,beta22,gamma333")
          local t = { 5, 3, 9, 1 }
          table.sort(t, function(a, b) return a > b end)
          check("sort", table.concat(t, " ") == "9 5 3 1")
          table.insert(t, 1, 0)
          check("insert/remove", table.remove(t) == 1 and table.concat(t, " ") == "0 9 5 3")
          check("unpack", select("#", table.unpack(t)) == 4)
          local co = coroutine.wrap(function(x) local y = coroutine.yield(x + 1) return y * 2 end)
          check("wrap", co(1) == 2 and co(5) == 10)
          check("pcall", select(2, pcall(error, "x", 0)) == "x")
          check("xpcall", select(2, xpcall(error, function(m) return (m:gsub("x", "y")) end, "x", 0)) == "y")
          local ok, message = coroutine.resume(coroutine.create(function() error("inner", 0) end))
          check("resume", not ok and message == "inner")
        end
        local finalizable = { __gc = finalize }
        local function garbage(n)
          for _ = 1, n do setmetatable({}, finalizable) end
        end
        local function enter() active = active + 1 end
        local function leave(...) active = active - 1 return ... end

        -- gsub whose replacement function calls gsub and gmatch again.
        local text = string.rep("ab12 cd345 efg6 ", 300)
        enter()
        local r, n = text:gsub("(%a+)(%d+)", function(word, digits)
          garbage(3)
          local flipped = digits:gsub("%d", function(d) garbage(1) return tostring(9 - tonumber(d)) end)
          local count = 0
          for _ in word:gmatch(".") do count = count + 1 end
          return word:upper() .. flipped .. count
        end)
        leave()
        emit("gsub function", n, digest(r), r:sub(1, 30))

        -- gsub with a table whose __index calls find, match and gsub.
        local lookup = setmetatable({}, { __index = function(_, key)
          garbage(2)
          local first = key:find("%d") or 0
          return key:match("%a+") .. first .. key:gsub("%d", "#")
        end })
        enter()
        r, n = leave(text:gsub("%a+%d+", lookup))
        emit("gsub table", n, digest(r), r:sub(1, 30))

        -- find and match with every capture, while collections run.
        local captures = string.rep("(%a)", 12) .. "(%d+)()"
        local hits = {}
        for i = 1, 400 do
          garbage(2)
          local s = string.rep(string.char(97 + i % 26), 12) .. i
          enter()
          local found = table.pack(s:find(captures))
          local matched = table.pack(s:match(captures))
          leave()
          hits[#hits + 1] = found.n .. "/" .. matched.n .. "/" .. tostring(found[#found]) .. tostring(matched[13])
        end
        emit("find/match", digest(table.concat(hits, ",")))

        -- gmatch: a fresh iterator per loop, whose body makes garbage and runs
        -- gmatch again on what it found.
        local words = {}
        enter()
        for word, number in text:gmatch("(%a+)(%d+)") do
          garbage(2)
          local inner = {}
          for c in word:gmatch("(.)") do inner[#inner + 1] = c end
          words[#words + 1] = table.concat(inner) .. number
        end
        leave()
        emit("gmatch", #words, digest(table.concat(words, " ")))

        -- sort with a comparator that sorts and concatenates; sort of objects
        -- whose __lt formats and compares strings.
        local numbers = {}
        for i = 1, 600 do numbers[i] = (i * 7919) % 1000 end
        enter()
        table.sort(numbers, function(a, b)
          garbage(1)
          local pair = { b, a }
          table.sort(pair)
          return a < b and table.concat(pair, ",") ~= ""
        end)
        leave()
        emit("sort comparator", digest(table.concat(numbers, " ")))
        local object = {}
        object.__lt = function(a, b)
          garbage(1)
          return string.format("%05d", a.v) < string.format("%05d", b.v)
        end
        local objects = {}
        for i = 1, 300 do objects[i] = setmetatable({ v = (i * 37) % 301 }, object) end
        enter()
        table.sort(objects)
        leave()
        local order = {}
        for i, o in ipairs(objects) do order[i] = o.v end
        emit("sort __lt", digest(table.concat(order, " ")))

        -- concat, insert, remove, move and unpack on a proxy whose
        -- metamethods call library functions and make garbage.
        local store = {}
        for i = 1, 200 do store[i] = "v" .. i end
        local proxy = setmetatable({}, {
          __index = function(_, k) garbage(1) return (store[k] and store[k]:gsub("v", "w")) end,
          __newindex = function(_, k, v) garbage(1) store[k] = v and (tostring(v):gsub("w", "v")) end,
          __len = function() garbage(1) return #store end,
        })
        enter()
        local joined = table.concat(proxy, ",", 1, 50)
        table.insert(proxy, 1, "first")
        table.insert(proxy, "last")
        local removed = table.remove(proxy, 10)
        table.move(proxy, 1, 20, 100)
        local unpacked = table.pack(table.unpack(proxy, 1, 30))
        leave()
        emit("proxy", digest(joined), removed, #store, digest(table.concat(store, ",")), unpacked.n, unpacked[30])

        -- Protected calls inside protected calls, with handlers that run
        -- gsub; errors from deep inside callbacks.
        local results = {}
        for i = 1, 200 do
          garbage(2)
          enter()
          local ok, message = pcall(function()
            return select(2, xpcall(function()
              return ("x"):gsub("x", function() garbage(1) error("deep " .. i, 0) end)
            end, function(m) garbage(1) return (m:gsub("deep", "caught")) end))
          end)
          local ok2, message2 = pcall(string.gsub, "abc", "(b)", function() error({ code = i }) end)
          leave()
          results[#results + 1] = tostring(ok) .. message .. tostring(ok2) .. type(message2) .. message2.code
        end
        emit("pcall/xpcall", digest(table.concat(results, ";")))

        -- Coroutines: a generator that yields what gmatch finds, resumed from
        -- the main code while finalizers run other coroutines; errors from a
        -- coroutine keep their message.
        local generator = coroutine.wrap(function()
          for word, number in text:gmatch("(%a+)(%d+)") do
            garbage(1)
            coroutine.yield(word .. "=" .. number)
          end
          return nil
        end)
        local generated = {}
        enter()
        for _ = 1, 10000 do
          local item = generator()
          if item == nil then break end
          generated[#generated + 1] = item
        end
        leave()
        emit("coroutine generator", #generated, digest(table.concat(generated, ",")))
        local messages = {}
        for i = 1, 200 do
          garbage(1)
          enter()
          local ok, message = coroutine.resume(coroutine.create(function() garbage(1) error("failed " .. i, 0) end))
          leave()
          messages[#messages + 1] = tostring(ok) .. message
        end
        emit("coroutine errors", digest(table.concat(messages, ";")))

        -- To-be-closed variables whose __close calls library functions, on
        -- the way out of a normal return and of an error.
        local closed = {}
        local closing = { __close = function(self, err)
          garbage(2)
          closed[#closed + 1] = self.name .. ":" .. (err and (tostring(err):gsub("%s", "_")) or "none")
        end }
        for i = 1, 100 do
          enter()
          pcall(function()
            local a <close> = setmetatable({ name = "a" .. i }, closing)
            local b <close> = setmetatable({ name = "b" .. i }, closing)
            if i % 2 == 0 then error("odd one " .. i, 0) end
          end)
          leave()
        end
        emit("__close", #closed, digest(table.concat(closed, ",")))

        -- __concat, __eq and __len that call library functions.
        local meta = {
          __concat = function(a, b)
            garbage(1)
            local x = type(a) == "table" and a.s or a
            local y = type(b) == "table" and b.s or b
            return (x .. y):gsub("(%a)(%a)", "%2%1")
          end,
          __eq = function(a, b) garbage(1) return a.s:upper() == b.s:upper() end,
          __len = function(a) garbage(1) return select(2, a.s:gsub("%a", "")) end,
        }
        local folded = {}
        for i = 1, 200 do
          local a = setmetatable({ s = "ab" .. i }, meta)
          local b = setmetatable({ s = "AB" .. i }, meta)
          enter()
          folded[#folded + 1] = (a .. "cd") .. tostring(a == b) .. #a
          leave()
        end
        emit("metamethods", digest(table.concat(folded, ",")))

        -- coroutine.resume explains a failed coroutine's message with that
        -- coroutine's stack, after the call consumed the only reference to
        -- it, while young collections run (see
        -- resumeKeepsTheCoroutineItExplains).
        collectgarbage("generational", 1, 100)
        local explained = {}
        local overflow = "[bm]:1: stack overflow " .. string.rep("A", 170)
        local function overflowing() error(overflow, 0) end
        for i = 1, 20000 do
          local ok, message = coroutine.resume(coroutine.create(overflowing))
          explained[tostring(ok) .. " " .. message:match("[^/]*$"):sub(1, 40)] = true
          local _ = string.rep("p", (i * 7919) % 1500)
        end
        for message in pairs(explained) do emit("resume explained", message) end
        collectgarbage("incremental")

        collectgarbage()
        collectgarbage()
        emit("finalizer checks failed", #wrong, table.concat(wrong, " ", 1, math.min(#wrong, 5)))
        emit("# finalizers ran", runs, "inside a call", reentered)
        print(table.concat(lines, "\n"))
        """#
}
