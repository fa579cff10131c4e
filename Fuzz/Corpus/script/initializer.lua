bm.initializer {
  type = "RequestManager",
  init = function() return { label = "first" } end,
}
local value = bm.resolve("RequestManager")
assert(value.label == "first")
