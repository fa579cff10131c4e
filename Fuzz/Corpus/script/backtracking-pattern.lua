-- C functions (issue 11): one string.find call that backtracked for minutes;
-- now the instruction budget stops it.
-- expect: instruction limit exceeded
local s = string.rep("a", 5000)
return string.find(s, string.rep("a*", 60) .. "b")
