local Owner = bm.class("Owner", {})
bm.initializer { type = "Thing", container = "Owner", init = function(sender) return bm.class_of(sender) == Owner end }
return bm.resolve("Thing", { container = Owner.new() }), pcall(bm.resolve, "Thing", { container = 42 })
