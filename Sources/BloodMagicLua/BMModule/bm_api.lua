-- The API of the bm module as plain data, for tools: `bmlua types` writes the
-- editor annotations from it (ScriptHost.apiDescription).
--
-- Its own chunk, `[bm api]`, compiled only when a tool asks: a host that
-- never describes itself does not build these tables (they were a tenth of
-- the cost of a new ScriptHost). It is called with the prelude's schemas and
-- helpers (internal.api_scope in Prelude/bm6_api.lua) and returns the API.

local scope = ...
local field, required, sorted_keys = scope.field, scope.required, scope.sorted_keys
local ANY, STRING, TABLE, FUNCTION, BOOLEAN = scope.ANY, scope.STRING, scope.TABLE, scope.FUNCTION, scope.BOOLEAN
local INITIALIZER, SINGLETON, HOOK, PREFERENCE = scope.INITIALIZER, scope.SINGLETON, scope.HOOK, scope.PREFERENCE
local PARTIAL, RESOLVE, DEFINE_SPELL, TYPED = scope.PARTIAL, scope.RESOLVE, scope.DEFINE_SPELL, scope.TYPED
local PARTIAL_SPELL, FINAL_SPELL, PREFERENCE_SPELL = scope.PARTIAL_SPELL, scope.FINAL_SPELL, scope.PREFERENCE_SPELL
local RESOLVER_REQUEST = scope.RESOLVER_REQUEST
local TYPED_NAMED, RESOLVE_ALL, DECORATOR = scope.TYPED_NAMED, scope.RESOLVE_ALL, scope.DECORATOR

-- Shapes of what bm hands out (not checked: bm makes them; required: always there).
local REGISTRATION = {
  id = field(required(ANY), "the registration's number in the registry", "integer"),
  kind = field(required(STRING), "what was registered: \"initializer\", \"hook\", \"resolver\", ..."),
  unregister = field(required(FUNCTION), "removes the registration; true if it was still registered",
    "fun(self: bm.Registration): boolean"),
}
local ENTRY = {
  kind = field(required(STRING), "\"initializer\", \"singleton\", \"hook\", \"preference\", \"partial\", \"resolver\", "
    .. "\"preference_keys\", \"decorator\", or a Swift registration's kind"),
  type = field(STRING, "the type it serves"),
  protocols = field(TABLE, "the protocol set it serves", "string[]"),
  container = field(STRING, "the container it is restricted to (nil: any)"),
  scope = field(STRING, "an initializer's scope (a custom scope by its name)",
    "\"instance\"|\"singleton\"|\"weak\"|\"graph\"|string"),
  property = field(STRING, "the property a hook or preference override is for"),
  name = field(STRING, "a named initializer's name"),
  forwarding = field(STRING, "for a type an initializer `implements`: the type and place of that initializer"),
  arguments = field(TABLE, "the arguments an initializer takes besides the sender", "string[]"),
  async = field(BOOLEAN, "true for a Swift initializer that is async: read before it is made, it fails"),
  isolation = field(STRING, "the global actor a Swift initializer is isolated to (\"MainActor\")"),
  source = field(required(STRING), "where it was registered, as file:line"),
}
local SPELL = {
  kind = field(required(STRING),
    "the spell: \"lazy\", \"injectable\", \"partial\", \"final\", \"preference\" or a custom name"),
  type = field(STRING, "the property's type name"),
  protocols = field(TABLE, "the property's protocol set", "string[]"),
  optional = field(BOOLEAN, "nil instead of an error when nothing serves the property"),
  name = field(STRING, "the registration name an injectable asks for"),
  key = field(STRING, "a preference's store key"),
  default = field(ANY, "a preference's default"),
  suite = field(STRING, "a preference's store (preference domain)"),
  source = field(required(STRING), "where the spell was written, as file:line"),
}
local CLASS = {
  new = field(required(FUNCTION), "makes an object: the given fields are set (spelled ones through their spell), then "
    .. "the class's init method runs", "fun(fields?: table): table"),
}
local RELOAD_CHANGES = {
  ok = field(required(BOOLEAN), "whether the reload succeeded (false: the previous wiring stays in force)"),
  files = field(required(TABLE), "the files that changed: startup scripts, required modules, partial templates",
    "string[]"),
  added = field(required(TABLE), "registrations the new scripts make that the old ones did not", "bm.Entry[]"),
  removed = field(required(TABLE), "registrations the old scripts made that the new ones do not", "bm.Entry[]"),
  replaced = field(required(TABLE), "registrations made again from a changed file or another line", "bm.Entry[]"),
  errors = field(required(TABLE), "after a failed reload, each failing file's `file:line: message`", "string[]"),
}
local CUSTOM_SPELL = {
  name = field(required(STRING), "the spell's name"),
  get = field(FUNCTION, "the spell's getter", "fun(sender: any, property: string, value: any): any"),
  set = field(FUNCTION, "the spell's setter", "fun(sender: any, property: string, new: any, old: any): any"),
  source = field(required(STRING), "where the spell was defined, as file:line"),
}

-- Each class of the annotations: its name, what it is, and its fields.
local CLASSES = {
  { "bm.InitializerDef", "The definition table of bm.initializer.", INITIALIZER },
  { "bm.SingletonDef", "The definition table of bm.singleton.", SINGLETON },
  { "bm.HookDef", "The definition table of bm.hook.", HOOK },
  { "bm.PreferenceDef", "The definition table of bm.preference.", PREFERENCE },
  { "bm.PartialDef", "The definition table of bm.partial.", PARTIAL },
  { "bm.DecoratorDef", "The definition table of bm.decorator.", DECORATOR },
  { "bm.ResolveOptions", "The options of bm.resolve.", RESOLVE },
  { "bm.ResolveAllOptions", "The options of bm.resolve_all.", RESOLVE_ALL },
  { "bm.SpellDef", "The definition table of bm.define_spell.", DEFINE_SPELL },
  { "bm.TypedSpellDef", "The table form of bm.spell.lazy and bm.spell.provider.", TYPED },
  { "bm.InjectableSpellDef", "The table form of bm.spell.injectable.", TYPED_NAMED },
  { "bm.PartialSpellDef", "The table form of bm.spell.partial.", PARTIAL_SPELL },
  { "bm.FinalSpellDef", "The table form of bm.spell.final.", FINAL_SPELL },
  { "bm.PreferenceSpellDef", "The table form of bm.spell.preference.", PREFERENCE_SPELL },
  { "bm.ResolverRequest", "What a bm.resolver function is asked.", RESOLVER_REQUEST },
  { "bm.Registration", "A registration; :unregister() removes it.", REGISTRATION },
  { "bm.Entry", "One registration, as bm.entries() lists it.", ENTRY },
  { "bm.Spell", "A spell descriptor, the value of a spelled field in bm.class.", SPELL },
  { "bm.Class", "A class made by bm.class.", CLASS },
  { "bm.CustomSpell", "A spell made by bm.define_spell.", CUSTOM_SPELL },
  { "bm.ReloadChanges", "What a bm.on_reload callback is told about a reload.", RELOAD_CHANGES },
}

-- Each function of bm: name, what it does, parameters ({ name, type,
-- optional }) and result type.
local FUNCTIONS = {
  { "bm.initializer", "Registers an initializer for properties of a type or protocol set.",
    { { "def", "bm.InitializerDef" } }, "bm.Registration" },
  { "bm.singleton", "Registers an initializer whose value is made once per registry and shared.",
    { { "def", "bm.SingletonDef" } }, "bm.Registration" },
  { "bm.hook", "Runs a function once after a property is injected.", { { "def", "bm.HookDef" } }, "bm.Registration" },
  { "bm.preference", "Overrides the key, default or store of a preference property.",
    { { "def", "bm.PreferenceDef" } }, "bm.Registration" },
  { "bm.partial", "Registers the template that builds partial properties of a type.",
    { { "def", "bm.PartialDef" } }, "bm.Registration" },
  { "bm.decorator", "Registers a decorator: it gets each value an initializer made for the type (and the sender), "
    .. "and returns the value the property gets; decorators run in registration order.",
    { { "def", "bm.DecoratorDef" } }, "bm.Registration" },
  { "bm.resolve", "Runs the most specific matching initializer and returns its value.",
    { { "type", "string|nil" }, { "options", "bm.ResolveOptions", true } }, "any" },
  { "bm.resolve_all", "Runs every registration of the type that applies (named or not), in registration order, "
    .. "and returns their values.",
    { { "type", "string|nil" }, { "options", "bm.ResolveAllOptions", true } }, "any[]" },
  { "bm.reset_scope", "Forgets the values kept by every registration of a custom scope the app declared (the next "
    .. "resolution of each makes a new one), and returns how many registrations it reset.",
    { { "name", "string" } }, "integer" },
  { "bm.entries", "Lists every registration.", {}, "bm.Entry[]" },
  { "bm.define_spell", "Defines a custom spell, usable as bm.spell.<name>(...).",
    { { "def", "bm.SpellDef" } }, "bm.CustomSpell" },
  { "bm.resolver", "Registers a resolver, asked for lazy and injectable properties no initializer serves; "
    .. "it returns the value, or bm.skip (or nil) to leave the property alone.",
    { { "fn", "fun(request: bm.ResolverRequest): any" } }, "bm.Registration" },
  { "bm.preference_keys", "Sets the function that makes the store key of preference properties that name "
    .. "none (an explicit key still wins).",
    { { "fn", "fun(container: string, property: string): string" } }, "bm.Registration" },
  { "bm.on_reload", "Runs fn after each reload of the scripts (ScriptHost.reload() or a watched change) with what "
    .. "changed; after a failed reload, the callbacks of the wiring still in force run.",
    { { "fn", "fun(changes: bm.ReloadChanges)" } } },
  { "bm.class", "Makes a class whose spelled fields are served by the registry.",
    { { "name", "string" }, { "def", "table<string, any>", true }, { "super", "bm.Class", true } }, "bm.Class" },
  { "bm.class_of", "The class of an object made by a bm.class, or nil.", { { "object", "any" } }, "bm.Class|nil" },
  { "bm.is_instance", "Whether an object is an instance of a class or of one of its subclasses.",
    { { "object", "any" }, { "class", "bm.Class" } }, "boolean" },
  { "bm.spell.lazy", "A property made on first read: the most specific initializer, else a resolver, else "
    .. "T.new() for a Lua class T.", { { "arg", "string|bm.TypedSpellDef" } }, "bm.Spell" },
  { "bm.spell.injectable", "A property injected on first read by an initializer or a resolver; with neither "
    .. "it raises (or gives nil when optional); with a name, only the initializers under that name serve it.",
    { { "arg", "string|bm.InjectableSpellDef" } }, "bm.Spell" },
  { "bm.spell.provider", "A property that makes a new value on every read through the registry (nothing kept, no "
    .. "hooks, cannot be assigned); with no initializer it raises (or gives nil when optional).",
    { { "arg", "string|bm.TypedSpellDef" } }, "bm.Spell" },
  { "bm.spell.partial", "A property built from the template of its type, kept per object.",
    { { "arg", "string|bm.PartialSpellDef" } }, "bm.Spell" },
  { "bm.spell.final", "A property that can be assigned once.", { { "arg", "bm.FinalSpellDef", true } }, "bm.Spell" },
  { "bm.spell.preference", "A property backed by the preference store shared with Swift.",
    { { "arg", "string|bm.PreferenceSpellDef", true } }, "bm.Spell" },
}

-- Values of bm that are not functions: name, type, what it is.
local VALUES = {
  { "bm.spell", "bm.spells", "The spell descriptors (custom spells are added by bm.define_spell)." },
  { "bm.skip", "bm.Skip", "What a resolver returns to leave a property alone." },
}

-- The fields of a schema, sorted by name, as plain data.
local function field_list(schema)
  local out = {}
  for _, name in ipairs(sorted_keys(schema)) do
    local rule = schema[name]
    out[#out + 1] = { name = name, lua = rule.lua, doc = rule.doc, required = rule.required == true }
  end
  return out
end

-- The API as plain data (strings and booleans), for `bmlua types`.
local function api()
  local shapes, functions, values = {}, {}, {}
  for _, row in ipairs(CLASSES) do
    shapes[#shapes + 1] = { name = row[1], doc = row[2], fields = field_list(row[3]) }
  end
  for _, row in ipairs(FUNCTIONS) do
    local params = {}
    for _, param in ipairs(row[3]) do
      params[#params + 1] = { name = param[1], lua = param[2], optional = param[3] == true }
    end
    functions[#functions + 1] = { name = row[1], doc = row[2], params = params, returns = row[4] }
  end
  for _, row in ipairs(VALUES) do
    values[#values + 1] = { name = row[1], lua = row[2], doc = row[3] }
  end
  return { classes = shapes, functions = functions, values = values }
end

return api()
