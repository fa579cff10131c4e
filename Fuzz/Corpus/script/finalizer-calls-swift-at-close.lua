-- Re-entrancy (issue 25, found by the fuzzer): the script fails, the tables
-- it keeps outlive it, and their finalizers run while the state closes and
-- call bm and the exposed Gauge. Swift functions no longer run then: each
-- finalizer's error is a warning, and the close goes on.
held = {}
for i = 1, 50 do
  held[i] = setmetatable({}, { __gc = function()
    bm.initializer { type = "T" .. i, init = function() return i end }
    local _ = bm.entries(), Gauge.new(), gauge:add(1), gauge.level
  end })
end
error("the tables are left to the close")
-- expect: the tables are left to the close
