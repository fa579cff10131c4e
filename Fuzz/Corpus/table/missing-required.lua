-- expect: name
{ count = 1 }