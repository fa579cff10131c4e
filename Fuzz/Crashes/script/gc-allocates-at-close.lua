-- Finalizers (issue 11): a __gc that allocates past the memory limit at close.
setmetatable({}, { __gc = function() local t = {} for i = 1, 1e8 do t[i] = i end end })
