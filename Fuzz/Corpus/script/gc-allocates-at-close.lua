-- Finalizers (issue 11): a __gc that allocated past the memory limit at
-- close; now finalizers run under the limits.
setmetatable({}, { __gc = function() local t = {} for i = 1, 1e8 do t[i] = i end end })
