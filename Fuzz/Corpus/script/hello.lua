local greeting = "hello, " .. "world"
return greeting
