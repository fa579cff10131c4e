-- An error-heavy script for leak checks (scripts/memcheck runs it through
-- bmlua under valgrind): every kind of error the host and `bm` raise, caught
-- and raised again many times, then limits that stop the run. Nothing it
-- does may leave memory behind when the process ends.
--
--   bmlua --max-instructions 50000000 --max-memory 16M Fuzz/Scripts/error-heavy.lua [ROUNDS]

local rounds = tonumber((...)) or 100
local caught = 0

local function expect_error(f, ...)
  local ok = pcall(f, ...)
  assert(not ok, "expected an error")
  caught = caught + 1
end

local Final = bm.class("ErrFinal", { id = bm.spell.final() })
local Pref = bm.class("ErrPref", { v = bm.spell.preference { default = 0 } })
local Needs = bm.class("ErrNeeds", {
  missing = bm.spell.injectable("ErrNothingServesThis"),
  failing = bm.spell.lazy("ErrFailing"),
})
bm.initializer { type = "ErrFailing", init = function() error({ reason = "table error object" }) end }
bm.hook { container = "ErrHooked", property = "part", fn = function() error("hook failed") end }
local Hooked = bm.class("ErrHooked", { part = bm.spell.lazy("ErrPart") })
bm.class("ErrPart", {})
local Cyc = bm.class("ErrCycle", { me = bm.spell.lazy("ErrCyclePart") })
bm.initializer { type = "ErrCyclePart", container = "ErrCycle", init = function(sender) return sender.me end }

for round = 1, rounds do
  -- Plain runtime errors, with every kind of error value.
  expect_error(error, "message " .. round)
  expect_error(error, { code = round })
  expect_error(error, nil)
  expect_error(error, "\255\254 bad bytes")
  expect_error(error, setmetatable({}, { __tostring = function() error("tostring fails too") end }))
  expect_error(function() local t = nil; return t.field end)
  expect_error(function() return 1 + {} end)
  expect_error(function() return #nil end)
  -- Library errors.
  expect_error(string.rep, "x", -1, {})
  expect_error(string.format, "%d", "not a number")
  expect_error(table.concat, { {}, {} })
  expect_error(setmetatable, 1, {})
  expect_error(require, "err_no_such_module_" .. round)
  expect_error(function() return ("x"):rep(1 << 40) end)
  -- Syntax errors through load.
  local f, message = load("local = " .. round)
  assert(f == nil and message)
  -- Errors inside coroutines.
  local co = coroutine.create(function() coroutine.yield(1); error("in a coroutine") end)
  coroutine.resume(co)
  assert(not coroutine.resume(co))
  expect_error(coroutine.wrap(function() error("wrapped") end))
  -- bm definition errors.
  expect_error(bm.initializer, { type = "T", contaner = "X", init = function() end })
  expect_error(bm.initializer, { init = function() end })
  expect_error(bm.initializer, 42)
  expect_error(bm.class, 42)
  expect_error(bm.hook, { property = 1 })
  expect_error(bm.preference, { property = "p" })
  expect_error(bm.resolve, "ErrNoInitializer" .. round)
  -- Spell errors.
  local final = Final.new()
  final.id = round
  expect_error(function() final.id = round end)
  expect_error(function() return Final.new().id end)
  expect_error(function() Pref.new().v = function() end end)
  local deep = {}
  for _ = 1, 300 do deep = { deep } end
  expect_error(function() Pref.new().v = deep end)
  local needs = Needs.new()
  expect_error(function() return needs.missing end)
  expect_error(function() return needs.failing end)
  expect_error(function() return Cyc.new().me end)
  pcall(function() return Hooked.new().part end)
  -- A registration that is made and removed.
  local handle = bm.initializer { type = "ErrTemporary", init = function() error("temporary") end }
  expect_error(bm.resolve, "ErrTemporary")
  handle:unregister()
  -- The memory limit, caught: the state stays usable.
  if round % 10 == 0 then
    pcall(function() local t = {} for i = 1, 1e6 do t[i] = ("x"):rep(1 << 20) .. i end end)
    collectgarbage()
  end
end

print(("caught %d errors in %d rounds"):format(caught, rounds))
-- Finally, the instruction limit ends the run (caught once, then it stops
-- the script for good).
pcall(function() while true do end end)
while true do end
