-- hello.lua: a first look at bmlua, BloodMagic's Lua host.
--
--   ./scripts/bmlua Examples/hello.lua            greets the world
--   ./scripts/bmlua Examples/hello.lua Ada Grace  greets each name given
--
-- Scripts run in a sandbox: the safe standard library, with limits on
-- memory and instructions that the host (or bmlua's flags) can set.

local names = { table.unpack(arg) }
if #names == 0 then names = { "world" } end

-- A tiny lazily-initialised greeter, the pattern BloodMagic's `lazy` spell
-- automates: the value is made on first use and kept afterwards.
local Greeter = {}
Greeter.__index = Greeter

function Greeter.new(greeting)
  return setmetatable({ greeting = greeting, made = 0 }, Greeter)
end

local cache = setmetatable({}, {
  __index = function(t, key)
    local value = Greeter.new(key)
    rawset(t, key, value)
    return value
  end,
})

local hour = tonumber(os.date("%H"))
local greeting = hour < 12 and "Good morning" or hour < 18 and "Good afternoon" or "Good evening"

for i, name in ipairs(names) do
  local greeter = cache[greeting]          -- created once, then reused
  greeter.made = greeter.made + 1
  print(string.format("%d. %s, %s! (%d letters, %s)", i, greeter.greeting, name,
    utf8.len(name), name:reverse():lower()))
end

local made = 0
for _ in pairs(cache) do made = made + 1 end
print(string.format("%d greeting(s) for %d name(s), %d greeter object(s) made", #names, #names, made))

-- The sandbox at work: no file system, no processes.
local ok, err = pcall(io.open, "/etc/passwd")
print("io.open in the sandbox: " .. (ok and "allowed?!" or err))
