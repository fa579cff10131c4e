-- Deep tables (issue 11): a document nested 100,000 levels overflows the
-- decoder's stack.
local t = { name = "leaf" } for i = 1, 100000 do t = { name = "n", children = { t } } end return t
