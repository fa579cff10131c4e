-- Re-entrancy (issue 25): gsub's replacement function and table call gsub,
-- gmatch, find and match again while finalizers do the same.
collectgarbage("incremental", 120, 200) -- a cycle at every 20% of growth (a pause under 100 collects without end, which the budget charges)
local subject = "k1=v1 k22=v22 k333=v333"
local fin = { __gc = function()
  assert(subject:gsub("(%w+)=(%w+)", "%2=%1") == "v1=k1 v22=k22 v333=k333")
  local n = 0
  for _ in subject:gmatch("%w+=") do n = n + 1 end
  assert(n == 3)
end }
local function garbage(n) for _ = 1, n do setmetatable({}, fin) end end
local text = string.rep("ab12 cd345 ", 40)
local r = text:gsub("(%a+)(%d+)", function(word, digits)
  garbage(2)
  local inner = digits:gsub("%d", function(d) garbage(1) return tostring(9 - tonumber(d)) end)
  local first = select(1, word:find("%a"))
  return word:upper() .. inner .. first .. (word:match("(%a)$"))
end)
assert(r:sub(1, 21) == "AB871b CD6541d AB871b", r:sub(1, 21))
local lookup = setmetatable({}, { __index = function(_, k)
  garbage(1)
  return (k:gsub("%d", function(d) return text:find(d, 1, true) and "#" end))
end })
assert(text:gsub("%a+%d+", lookup):sub(1, 10) == "ab## cd###")
return "ok"
-- expect: ok
