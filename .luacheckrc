-- luacheck configuration (Debian's lua-check package; ./scripts/lint runs it,
-- and ./scripts/test runs ./scripts/lint). Zero warnings is the bar.
std = "lua54"
max_line_length = 120

-- Every script a host loads sees the `bm` module.
read_globals = { "bm" }

-- The feed reader's wiring scripts also see the Swift types the app exposes
-- and the `feedreader` table it sets (Examples/FeedReader/Sources).
files["Examples/FeedReader/Scripts"] = {
  read_globals = {
    "feedreader",
    "RequestManager", "Cache", "Settings",
    "RefreshingFeedLoader", "CachedFeedLoader",
  },
}

-- The server example's scripts construct the Greeter it exposes
-- (Examples/Server/Sources/Server/ScriptWiring.swift).
files["Examples/Server/scripts"] = {
  read_globals = { "Greeter" },
}

-- A build of an example in its own folder holds its packages' checkouts.
exclude_files = { "Examples/**/.build/**", "Examples/**/.build-*/**" }
