// BloodMagicLua: a safe Lua 5.4 host on top of the BloodMagic spell engine.
//
// Layers, each in its own folder:
// - LuaHost/: the sandboxed, limited Lua state (its C is Sources/CLuaHost, over Sources/CLua).
// - LuaBridge/: Codable values and exposed Swift classes.
// - BMModule/: the `bm` module (its Lua half is the prelude, one chunk in the
//   files of BMModule/Prelude, embedded at build time; bm_check.lua,
//   ScriptChecker's Lua half, and bm_api.lua, the API description for
//   tools, are embedded from BMModule too and loaded only when used).
// - ScriptHost/: the front door: ScriptHost, ScriptChecker, AppManifest.
@_exported import BloodMagic
