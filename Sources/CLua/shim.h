// Placeholder shim so the CLua system-library module resolves while the Lua
// host (which owns the real shim) is written on another branch.
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
