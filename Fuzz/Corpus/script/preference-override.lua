bm.preference { container = "Settings", property = "maxItems", default = 4 }
bm.preference { property = "keyword", key = "app.keyword", default = "swift", suite = "com.example.app" }
local Settings = bm.class("Settings", {
  maxItems = bm.spell.preference {},
  keyword = bm.spell.preference { default = "none" },
  nested = bm.spell.preference { default = { a = { b = { 1, 2, 3 } } } },
})
local s = Settings.new()
s.nested = { x = { y = { z = "deep" } } }
return s.maxItems, s.keyword, s.nested
