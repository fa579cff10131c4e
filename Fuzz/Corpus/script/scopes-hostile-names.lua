-- Scopes (issue 29): a scope name no app declared, however long or odd, is
-- an error naming the field, and is never read whole into Swift; the
-- built-in scopes register and resolve.
-- expect: a custom scope the app declared (none declared), got a name of
bm.initializer { type = "W", scope = "weak", init = function() return {} end }
bm.initializer { type = "G", scope = "graph", init = function() return { bm.resolve("W") } end }
local Q = bm.class("Q", { g = bm.spell.provider("G") })
local q = Q.new()
assert(q.g ~= q.g)
for _, name in ipairs({ "", "\0", "session\0x", "ünïcode" }) do
  assert(not pcall(bm.initializer, { type = "T", scope = name, init = function() end }))
end
bm.initializer { type = "T", scope = string.rep("s", 4096), init = function() end }
