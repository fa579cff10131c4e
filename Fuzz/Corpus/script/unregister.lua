local handle = bm.initializer { type = "T", init = function() return 1 end }
assert(bm.resolve("T") == 1)
handle:unregister()
handle:unregister()
return pcall(bm.resolve, "T")
