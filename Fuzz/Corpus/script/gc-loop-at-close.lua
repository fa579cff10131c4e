-- Finalizers (issue 11): a __gc that looped forever when the state closed;
-- now finalizers run under the limits.
setmetatable({}, { __gc = function() while true do end end })
