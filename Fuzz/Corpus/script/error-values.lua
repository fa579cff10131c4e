local results = {}
for _, value in ipairs { "text", 42, true, {}, function() end } do
  results[#results + 1] = select(2, pcall(error, value))
end
results[#results + 1] = select(2, pcall(error))
results[#results + 1] = select(2, pcall(error, setmetatable({}, { __tostring = function() return "custom" end })))
error(setmetatable({}, { __tostring = function() error("tostring fails") end }))
