// Placeholder entry point so the package builds while the Lua host is being
// written on another branch; that branch replaces this file.
print("bmlua: the Lua host is not built on this branch yet")
