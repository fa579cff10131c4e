-- Re-entrancy (issue 25): table.sort, concat, insert, remove, move and
-- unpack whose comparators and metamethods sort, concatenate and make
-- garbage with finalizers that do the same.
collectgarbage("incremental", 120, 200) -- a cycle at every 20% of growth (a pause under 100 collects without end, which the budget charges)
local fin = { __gc = function()
  local t = { 3, 1, 2 }
  table.sort(t)
  assert(table.concat(t) == "123")
end }
local function garbage(n) for _ = 1, n do setmetatable({}, fin) end end
local numbers = {}
for i = 1, 120 do numbers[i] = (i * 37) % 121 end
table.sort(numbers, function(a, b)
  garbage(1)
  local pair = { b, a }
  table.sort(pair)
  return a < b
end)
for i = 2, #numbers do assert(numbers[i - 1] <= numbers[i]) end
local mt = { __lt = function(a, b) garbage(1) return ("%04d"):format(a.v) < ("%04d"):format(b.v) end }
local objects = {}
for i = 1, 60 do objects[i] = setmetatable({ v = (i * 7) % 61 }, mt) end
table.sort(objects)
local store = {}
for i = 1, 40 do store[i] = "v" .. i end
local proxy = setmetatable({}, {
  __index = function(_, k) garbage(1) return store[k] and table.concat({ store[k], "!" }) end,
  __newindex = function(_, k, v) garbage(1) store[k] = v and (tostring(v):gsub("!", "")) end,
  __len = function() garbage(1) return #store end,
})
local joined = table.concat(proxy, ",", 1, 5)
table.insert(proxy, 1, "first")
local removed = table.remove(proxy, 3)
table.move(proxy, 1, 5, 20)
local n = select("#", table.unpack(proxy, 1, 10))
assert(joined == "v1!,v2!,v3!,v4!,v5!" and removed == "v2!" and n == 10)
return "ok"
-- expect: ok
