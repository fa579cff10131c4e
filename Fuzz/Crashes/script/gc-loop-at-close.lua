-- Finalizers (issue 11): a __gc that loops forever when the state closes.
setmetatable({}, { __gc = function() while true do end end })
