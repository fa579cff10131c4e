assert(io == nil and debug == nil and dofile == nil and loadfile == nil)
assert(string.dump == nil and os.execute == nil and os.getenv == nil)
return pcall(require, "nonexistent.module"), pcall(require, "../../etc/passwd")
