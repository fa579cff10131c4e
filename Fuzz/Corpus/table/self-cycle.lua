-- Cyclic tables (issue 11), found in this corpus: the decoder recursed through
-- the cycle until the stack overflowed.
-- expect: the table contains itself (a cycle)
local t = { name = "loop" } t.child = { document = t } t.children = { t } return t