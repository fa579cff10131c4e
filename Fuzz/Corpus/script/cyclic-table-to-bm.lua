local t = {}
t.self = t
local ok, err = pcall(bm.initializer, t)
local P = bm.class("CyclicPref", { v = bm.spell.preference { default = 0 } })
return pcall(function() P.new().v = t end)
