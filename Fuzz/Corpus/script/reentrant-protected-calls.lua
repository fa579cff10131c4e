-- Re-entrancy (issue 25): pcall, xpcall, coroutine.resume, close and wrap
-- nested in callbacks, handlers, __close and finalizers.
collectgarbage("incremental", 120, 200) -- a cycle at every 20% of growth (a pause under 100 collects without end, which the budget charges)
local fin = { __gc = function()
  local ok, message = pcall(error, "in finalizer", 0)
  assert(not ok and message == "in finalizer")
  local co = coroutine.create(function() coroutine.yield(1) end)
  coroutine.resume(co)
  assert(coroutine.close(co))
end }
local function garbage(n) for _ = 1, n do setmetatable({}, fin) end end
for i = 1, 30 do
  garbage(2)
  local ok, message = pcall(function()
    return select(2, xpcall(function()
      return ("x"):gsub("x", function() garbage(1) error("deep " .. i, 0) end)
    end, function(m) garbage(1) return (m:gsub("deep", "caught")) end))
  end)
  assert(ok and message == "caught " .. i)
  local closed
  pcall(function()
    local c <close> = setmetatable({}, { __close = function(_, e) garbage(1) closed = tostring(e):gsub("%d", "#") end })
    error("boom" .. i, 0)
  end)
  assert(closed:match("^boom#+$"))
  local gen = coroutine.wrap(function()
    for w in ("a b c"):gmatch("%a") do garbage(1) coroutine.yield(w) end
  end)
  assert(gen() .. gen() .. gen() == "abc")
  local failed, text = coroutine.resume(coroutine.create(function() garbage(1) error({ i }) end))
  assert(not failed and text[1] == i)
end
return "ok"
-- expect: ok
