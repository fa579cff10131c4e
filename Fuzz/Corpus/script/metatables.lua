local mt = { __index = function(t, k) return k end, __newindex = function(t, k, v) rawset(t, k, v * 2) end,
  __call = function(self, x) return x end, __len = function() return 42 end, __concat = function() return "cc" end }
local t = setmetatable({}, mt)
t.a = 2
return t.missing, t.a, t(5), #t, t .. "x"
