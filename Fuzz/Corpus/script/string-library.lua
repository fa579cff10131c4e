local s = ("%5.2f|%q|%x"):format(3.14159, "a\0b", 255)
local parts = {}
for word in ("one two three"):gmatch("%a+") do parts[#parts + 1] = word end
return s, table.concat(parts, ","), ("abc"):rep(3, "-"), utf8.char(72, 228, 8364), ("x"):byte(1, -1)
