-- Deep tables (issue 11): a document nested 20,000 levels (within the fuzz
-- target's memory limit) overflowed the decoder's stack; now a coding-path error.
-- expect: tables nested more than 200 deep
local t = { name = "leaf" } for i = 1, 20000 do t = { name = "n", children = { t } } end return t
