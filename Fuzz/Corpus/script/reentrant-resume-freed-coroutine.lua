-- Re-entrancy (issue 25): coroutine.resume explained the error of a
-- coroutine nothing else referenced; a young collection during the
-- explanation freed it, and the next string (these A's) took its place.
collectgarbage("generational", 1, 100)
local message = "[bm]:1: stack overflow " .. string.rep("A", 170)
local function fail() error(message, 0) end
for i = 1, 1000 do
  local ok, explained = coroutine.resume(coroutine.create(fail))
  assert(not ok and explained:find("stack overflow A", 1, true))
  local _ = string.rep("pppppppppppppppp", (i * 7919) % 64)
end
return "ok"
-- expect: ok
