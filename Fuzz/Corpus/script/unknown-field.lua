-- expect: unknown field
bm.initializer { type = "T", contaner = "X", init = function() end }
