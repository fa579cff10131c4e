-- expect: the table contains itself
local P = bm.class("CyclicPref", { v = bm.spell.preference { default = 0 } })
local t = {}
t[1] = t
P.new().v = t
