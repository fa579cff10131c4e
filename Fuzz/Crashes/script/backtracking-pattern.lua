-- C functions (issue 11): one string.find call that backtracks for minutes.
local s = string.rep("a", 5000)
return string.find(s, string.rep("a*", 60) .. "b")
