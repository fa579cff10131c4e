-- Endless recursion through objects: a C stack overflow or a limit, never a crash.
local A = bm.class("Endless", { next = bm.spell.lazy("Endless") })
bm.initializer { type = "Endless", init = function() return A.new().next end }
local _ = A.new().next
