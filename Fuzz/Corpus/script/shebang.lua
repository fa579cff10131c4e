#!/usr/bin/env bmlua
local x = 1
assert(x == 1)
