-- Re-entrancy (issue 25, found by the fuzzer): the script fails, the tables
-- it keeps outlive it, and their finalizers run while the state closes and
-- call the exposed Gauge and bm. Objects made then are released after the
-- close (Lua runs no __gc for them); bm refuses to run then (the module
-- holds its state unowned): each finalizer's error is a warning.
held = {}
for i = 1, 50 do
  held[i] = setmetatable({}, { __gc = function()
    kept = { Gauge.new(), gauge:add(1), gauge.level, kept }
    bm.initializer { type = "T" .. i, init = function() return i end }
    local _ = bm.entries()
  end })
end
error("the tables are left to the close")
-- expect: the tables are left to the close
