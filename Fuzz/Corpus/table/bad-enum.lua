-- expect: kind
{ name = "x", kind = "trunk" }