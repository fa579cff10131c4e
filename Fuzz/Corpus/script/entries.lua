bm.initializer { type = "A", init = function() return 1 end }
bm.initializer { type = "A", init = function() return 2 end }
bm.hook { property = "p", fn = function() end }
for _, entry in ipairs(bm.entries()) do
  assert(type(entry.kind) == "string" and type(entry.source) == "string")
end
