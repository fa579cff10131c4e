-- 10-network.lua: where the feeds come from.
--
-- `feedreader.feedsURL` is the file:// URL of the feeds directory (the
-- host sets it from --feeds). The RequestManager is a singleton: every
-- loader shares one, so its log counts all the requests of a run.
bm.singleton {
  type = "RequestManager",
  init = function()
    return RequestManager.new { baseURL = feedreader.feedsURL }
  end,
}

-- The feeds to read. A table is decoded into Swift's `Subscriptions`.
bm.initializer {
  type = "Subscriptions",
  init = function()
    return { feeds = { "compile-time.json", "moonlight-scripts.json", "small-servers.json" } }
  end,
}
