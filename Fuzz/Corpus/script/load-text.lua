local f = assert(load("return ..."))
return f(1, 2, 3), load("syntax (")
