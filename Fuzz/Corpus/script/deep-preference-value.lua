-- expect: cannot store it: tables nested more than
local P = bm.class("DeepPref", { v = bm.spell.preference { default = 0 } })
local t = {}
for i = 1, 35000 do t = { t } end
P.new().v = t
