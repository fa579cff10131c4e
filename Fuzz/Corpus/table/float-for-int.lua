-- expect: count
{ name = "x", count = 1.5 }