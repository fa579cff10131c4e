// BloodMagic: property-wrapper spells, a registry of initializers matched by
// property type, protocol and container, and a safe Lua 5.4 host on top.
//
// Layers, each in its own folder:
// - Registry/, Spells/, Preferences/, Partials/: the spell engine (pure Swift, no Lua).
// - LuaHost/: a safe Lua 5.4 state (the only folder that imports CLua directly,
//   besides the bridge).
// - LuaBridge/: the `bm` module that puts the spell engine into Lua.
