local cache = setmetatable({}, { __mode = "k" })
for i = 1, 1000 do cache[{}] = i end
collectgarbage()
collectgarbage("step", 100)
return collectgarbage("count") > 0
