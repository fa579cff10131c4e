local function count(...) return select("#", ...) end
local i = 0
::again::
i = i + 1
if i < 10 then goto again end
return count(table.unpack({ 1, nil, 3 }, 1, 3)), i
