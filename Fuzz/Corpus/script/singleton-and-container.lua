local VC = bm.class("ViewController", {
  manager = bm.spell.injectable("RequestManager"),
})
bm.singleton { type = "RequestManager", container = "ViewController", init = function(sender) return { made = true } end }
local a, b = VC.new(), VC.new()
assert(a.manager == b.manager)
