-- Cyclic tables (issue 11), found in this corpus: the decoder recursed through
-- the cycle until the stack overflowed.
-- expect: the table contains itself (a cycle)
local a, b = { name = "a" }, { name = "b" } a.attributes = { b = b } b.attributes = { a = a } return a