for i = 1, 200 do
  local h = bm.initializer { type = "T" .. i % 7, container = "C" .. i % 3, init = function() return i end }
  if i % 2 == 0 then h:unregister() end
end
return #bm.entries()
