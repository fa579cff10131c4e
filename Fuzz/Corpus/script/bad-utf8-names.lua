bm.class("\255\0name", { ["\192"] = bm.spell.final() })
bm.initializer { type = "\237\160\128", init = function() return "\255" end }
return bm.resolve("\237\160\128")
