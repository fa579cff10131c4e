-- expect: ok
-- The exposed Swift class: every kind of member, and the errors each can raise.
local g = Gauge.new()
g.level = g.level + 1
g.ratio = g.ratio * 2.5
g.flag = not g.flag
g.label = g.label .. "!"
local _ = g.serial + g.doubled
g.doubled = 40
g:add(5)
g:scale(0.5)
g:scale(2, "scaled")
g:link(gauge)
g.peer = nil
local _ = g:three(1, true, "x"), g:sum(), g:sum(3)
for _, bad in ipairs({
  function() g:add("x") end,
  function() g:add(1, 2) end,
  function() g:add(1.5) end,
  function() g:link({}) end,
  function() Gauge.add({}, 1) end,
  function() g.serial = 1 end,
  function() g.level = "x" end,
  function() g.unknown = 1 end,
  function() g:three(1, true) end,
  function() return gauge.level, gauge.peer, gauge.missing end,
}) do
  pcall(bad)
end
return g.level
