-- hello.lua: BloodMagic's spells, from Lua.
--
--   ./scripts/bmlua Examples/hello.lua            greets the world
--   ./scripts/bmlua Examples/hello.lua Ada Grace  greets each name given
--
-- The wiring (which object serves which property) is registered once, the
-- classes only declare what they need, and the spells do the rest: a lazy
-- value is made on first use and kept, an injectable one comes from the
-- registry, a final one can be set only once, and a preference survives
-- between runs when bmlua is given a store: by default bmlua keeps
-- preferences in memory, so this example never writes to your files;
--   ./scripts/bmlua --preferences /tmp/hello.plist Examples/hello.lua
-- keeps the count below in that file.

local names = { ... }
if #names == 0 then names = { "world" } end

-- The wiring: one clock for everybody, and a greeting that depends on who asks.
bm.singleton { type = "Clock", init = function()
  return { hour = tonumber(os.date("%H")), started = os.clock() }
end }

bm.initializer { type = "Greeting", container = "Greeter", init = function(greeter)
  local hour = greeter.clock.hour
  return hour < 12 and "Good morning" or hour < 18 and "Good afternoon" or "Good evening"
end }

bm.initializer { type = "Greeting", container = "ShyGreeter", init = function()
  return "Oh, hello"
end }

-- Who got what, once per injection.
local injected = {}
bm.hook { property = "greeting", fn = function(sender, value)
  injected[#injected + 1] = tostring(bm.class_of(sender)):gsub("^class ", "") .. " <- " .. value
end }

-- The classes: nothing here says where the values come from.
local Greeter = bm.class("Greeter", {
  clock    = bm.spell.injectable("Clock"),
  greeting = bm.spell.injectable("Greeting"),
  name     = bm.spell.final(),
  greet    = function(self) return string.format("%s, %s!", self.greeting, self.name) end,
})
local ShyGreeter = bm.class("ShyGreeter", {}, Greeter)   -- inherits the spells

local Stats = bm.class("Stats", { runs = bm.spell.preference { key = "hello.runs", default = 0 } })

for i, name in ipairs(names) do
  local greeter = (i % 2 == 0 and ShyGreeter or Greeter).new { name = name }
  print(string.format("%d. %s", i, greeter:greet()))
  local ok, err = pcall(function() greeter.name = "someone else" end)
  if not ok then print("   (" .. err:gsub("^.-:%d+: ", "") .. ")") end
end

print("injections: " .. table.concat(injected, ", "))
local a, b = Greeter.new { name = "a" }, Greeter.new { name = "b" }
print("one clock for everybody: " .. tostring(a.clock == b.clock))

local stats = Stats.new()
stats.runs = stats.runs + 1
print(string.format("this script has run %d time(s) with this preference store", stats.runs))
