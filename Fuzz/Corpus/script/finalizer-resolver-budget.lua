-- Re-entrancy (issue 25): a finalizer that runs outside a run and calls Lua
-- again through Swift (a resolver) stays under the instruction budget.
bm.resolver(function() return 1 end)
local Holder = bm.class("Holder", { x = bm.spell.lazy("Missing") })
KEEP = {}
for i = 1, 100 do
  KEEP[i] = setmetatable({}, { __gc = function()
    local _ = Holder.new().x
    while true do end
  end })
end
KEEP = nil
return "ok"
-- expect: ok
