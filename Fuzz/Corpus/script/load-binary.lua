return load("\27Lua\84\0\25\147\r\n\26\n")
