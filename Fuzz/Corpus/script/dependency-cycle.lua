-- expect: dependency cycle
local SelfNeeding = bm.class("SelfNeeding", { me = bm.spell.lazy("SelfNeedingPart") })
bm.initializer { type = "SelfNeedingPart", container = "SelfNeeding", init = function(sender) return sender.me end }
local _ = SelfNeeding.new().me
