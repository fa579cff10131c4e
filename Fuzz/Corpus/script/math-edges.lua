return math.mininteger // -1, math.maxinteger + 1, 1 // 0.0, -1 // 0.0, 0/0 ~= 0/0,
  pcall(function() return 1 // 0 end), pcall(function() return math.mininteger % 0 end),
  math.tointeger(2^53), math.fmod(math.mininteger, -1), string.format("%d", 3.0)
