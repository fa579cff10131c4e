-- 20-storage.lua: the shared cache and the settings.
bm.singleton {
  type = "Cache",
  init = function() return Cache.new { capacity = 16 } end,
}

bm.singleton {
  type = "Settings",
  init = function() return Settings.new() end,
}

-- Defaults for Settings' @Preference properties; a value in the preference
-- store (feedreader --preferences FILE) wins over these.
bm.preference { container = "Settings", property = "maxItems", default = 4 }
bm.preference { container = "Settings", property = "keyword", default = "swift" }
bm.preference { container = "Settings", property = "summaryLength", default = 72 }
bm.preference { container = "Settings", property = "runs", key = "feedreader.runs" }
