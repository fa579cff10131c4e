-- Forged handles (issue 11): a handle rebuilt from a real handle's
-- metatable with a bad id trapped in Swift on unregister; now refused.
local real = bm.initializer { type = "T", init = function() return 1 end }
for _, id in ipairs { -1, math.maxinteger, 0.5, 2^63, "x" } do
  local forged = setmetatable({}, getmetatable(real))
  for k, v in pairs(real) do forged[k] = v end
  for k in pairs(forged) do if type(forged[k]) == "number" then forged[k] = id end end
  pcall(forged.unregister, forged)
end
