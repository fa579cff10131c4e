bm.initializer { type = "ProgressViewService", init = function() return { n = 1 } end }
bm.initializer { protocols = { "Client" }, init = function() return { client = true } end }
bm.partial { type = "HeaderView", init = function(sender) return { header = true } end }
local VC = bm.class("ViewController", {
  progressViewService = bm.spell.lazy("ProgressViewService"),
  client = bm.spell.injectable { protocols = { "Client" } },
  maybe = bm.spell.injectable { type = "Analytics", optional = true },
  id = bm.spell.final(),
  nickname = bm.spell.preference { key = "nickname", default = "anon" },
  headerView = bm.spell.partial("HeaderView"),
  title = "default",
  greet = function(self) return "hi " .. self.title end,
})
local vc = VC.new { title = "x" }
vc.id = 7
assert(vc.progressViewService.n == 1 and vc.client.client and vc.maybe == nil)
assert(vc.nickname == "anon" and vc.headerView.header and vc:greet() == "hi x")
vc.nickname = "AlexDenisov"
assert(vc.nickname == "AlexDenisov")
