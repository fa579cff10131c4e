bm.initializer { type = "Kept", init = function() return 1 end }
bm.class("Rolled", {})
error("fails after registering")
