local seen = {}
bm.hook { container = "Screen", property = "loader", fn = function(sender, value) seen[#seen + 1] = value end }
bm.initializer { type = "Loader", init = function() return "loader" end }
local Screen = bm.class("Screen", {
  loader = bm.spell.injectable("Loader"),
  loaderInjected = function(self, value) seen[#seen + 1] = "method" end,
})
local _ = Screen.new().loader
assert(#seen >= 1)
