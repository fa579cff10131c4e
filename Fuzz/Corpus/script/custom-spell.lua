bm.define_spell {
  name = "upper",
  get = function(sender, property, value) return value and value:upper() end,
  set = function(sender, property, new, old) return new end,
}
local C = bm.class("Shouting", { word = bm.spell.upper() })
local c = C.new { word = "quiet" }
assert(c.word == "QUIET")
