{ name = "root", count = 3, ratio = 0.5, flag = true, tags = { "a", "b" },
  children = { { name = "c1" }, { name = "c2", count = -1 } },
  attributes = { left = { name = "l" }, right = { name = "r", kind = "leaf" } },
  numbered = { [1] = "one", [7] = "seven", [-3] = "minus three" },
  child = { document = { name = "boxed", child = { document = { name = "inner" } } } },
  kind = "branch", bytes = { 0, 1, 255 } }