-- Re-entrancy (issue 25): finalizers that call bm and the exposed Gauge
-- while Swift functions run, and that use Gauge objects whose own
-- finalizers may have run first.
-- 90 objects: enough for several collections with finalizers inside Swift
-- calls, and far enough under the 200,000 instructions that the collector's
-- timing (Lua's per-state string hash seed, the input's path) cannot push it over.
collectgarbage("incremental", 120, 200) -- a cycle at every 20% of growth (a pause under 100 collects without end, which the budget charges)
bm.initializer { type = "Dep", init = function() return { x = 1 } end }
local Box = bm.class("Box", { dep = bm.spell.lazy("Dep"), p = bm.spell.preference { default = { 1, 2 } } })
local fin = { __gc = function(self)
  local handle = bm.initializer { type = "T" .. (self.n % 3), init = function() return self.n end }
  local b = Box.new()
  b.p = { self.n }
  local _ = b.dep, b.p, #bm.entries()
  handle:unregister()
  pcall(function() return self.g:add(1), self.g.level, gauge:sum(2) end)
end }
for i = 1, 90 do
  local g = Gauge.new()
  setmetatable({ n = i, g = g }, fin)
  g:add(i)
  local b = Box.new()
  b.p = { i, { i } }
  local _ = b.p, #bm.entries(), gauge:three(i, true, "x")
end
return "ok"
-- expect: ok
