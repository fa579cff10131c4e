local P = bm.class("P", { v = bm.spell.preference { default = 0 } })
local p = P.new()
local big = {}
for i = 1, 1e6 do big[i] = i end
p.v = big
