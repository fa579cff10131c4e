// BloodMagic, the spell engine: property-wrapper spells, a registry of
// initializers matched by property type, protocol and container, and
// preference stores. Pure Swift: nothing here knows Lua exists.
//
// Layers, each in its own folder:
// - Registry/: registrations, resolution, hooks, cycles, diagnostics.
// - Spells/: the property wrappers.
// - Preferences/: the stores behind @Preference.
// - Partials/: template providers behind @Partial.
//
// The Lua host, the bridge and the `bm` module live in the BloodMagicLua
// product, which depends on this one.
