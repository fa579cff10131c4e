-- Re-entrancy (issue 25): finalizers call the gmatch iterator that is
-- pushing its captures, from a coroutine of their own. Every call returns
-- one whole match and every match comes once.
collectgarbage("incremental", 120, 200) -- a cycle at every 20% of growth (a pause under 100 collects without end, which the budget charges)
local N = 300
local parts = {}
for i = 1, N do parts[i] = string.format("%04d", i):rep(6, ",") end
local it = string.gmatch(table.concat(parts, ";"), string.rep("(%d+),", 5) .. "(%d+)")
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
local seen = {}
for _, r in ipairs(results) do
  if r.n > 0 then
    assert(r.n == 6 and type(r[1]) == "string" and r[1]:match("^%d%d%d%d$"), "not a whole match")
    for j = 2, 6 do assert(r[j] == r[1], "captures of two matches") end
    local k = tonumber(r[1])
    assert(not seen[k], "a match came twice")
    seen[k] = true
  end
end
for i = 1, N do assert(seen[i], "a match went missing") end
return "ok"
-- expect: ok
