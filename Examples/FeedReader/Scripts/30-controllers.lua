-- 30-controllers.lua: one property type, two loaders.
--
-- Both controllers declare `@Injectable var loader: any FeedLoader`. The
-- container decides which class serves it: the headlines always fetch (and
-- refresh the cache), the digest reads what the cache already holds.
bm.initializer {
  protocols = { "FeedLoader" },
  container = "HeadlinesController",
  init = function() return RefreshingFeedLoader.new() end,
}

bm.initializer {
  protocols = { "FeedLoader" },
  container = "DigestController",
  init = function() return CachedFeedLoader.new() end,
}

-- Report the wiring once per controller, when its loader is injected.
for _, controller in ipairs { "HeadlinesController", "DigestController" } do
  bm.hook {
    container = controller,
    property = "loader",
    fn = function(_, loader)
      print(("wired %s.loader -> %s"):format(controller, loader.kind))
    end,
  }
end
