-- The bm prelude, part 3 of 6: the spell descriptors.
-- One chunk with the other parts (bm1_definitions.lua says how): their locals are its locals.

---------------------------------------------------------------------------
-- Spells
---------------------------------------------------------------------------

local Spell = { __name = "bm.spell" }
Spell.__index = Spell
function Spell.__tostring(s)
  return "bm.spell." .. s.kind .. (s.type and ("(" .. s.type .. ")") or "")
end

-- The spells made here. A table is a spell only when it is one of these:
-- getmetatable answers with a metatable's __metatable field, so a script's
-- table could otherwise pass for one.
local made_spells = setmetatable({}, { __mode = "k" })
local function is_spell(value)
  return type(value) == "table" and made_spells[value] == true
end

-- A spell remembers where it was written (`bm.spell.lazy(...)` sits on the
-- property's line), so tools can point at the property, not only the class.
local function make_spell(kind, fields)
  fields.kind = kind
  fields.source = core.location()
  setmetatable(fields, Spell)
  made_spells[fields] = true
  return fields
end

local TYPED = {
  type = field(STRING, "the property's type name"),
  protocols = field(TABLE, "the property's protocol set (order-free)", "string[]"),
  optional = field(BOOLEAN, "nil instead of an error when nothing serves the property"),
}

local TYPED_NAMED = {
  name = field(STRING, "the registration name that serves the property (bm.initializer { name = ... })"),
}
for key, rule in next, TYPED do TYPED_NAMED[key] = rule end

-- lazy("T"), lazy { type = "T", protocols = {...}, optional = true };
-- injectable takes a registration `name` too.
local function typed_spell(kind)
  local schema = kind == "injectable" and TYPED_NAMED or TYPED
  local fname = "bm.spell." .. kind
  return function(arg)
    local def
    if type(arg) == "string" then
      def = { type = arg }
    elseif arg == nil then
      fail(fname .. ": missing required field 'type' (or 'protocols'): give the property's type, as "
        .. fname .. "(\"T\") or " .. fname .. " { type = \"T\" }")
    else
      local fields = check(fname, arg, schema)
      def = { type = fields.type, protocols = protocol_list(fname, fields.protocols), optional = fields.optional,
              name = registration_name(fname, fields.name) }
    end
    if def.type == nil and def.protocols == nil then
      fail(fname .. ": missing required field 'type' (or 'protocols')")
    end
    return make_spell(kind, def)
  end
end

bm.spell.lazy = typed_spell("lazy")
bm.spell.injectable = typed_spell("injectable")
bm.spell.provider = typed_spell("provider")

local PARTIAL_SPELL = { type = field(required(STRING), "the template's type") }
local FINAL_SPELL = { optional = field(BOOLEAN, "reading before the first assignment gives nil, not an error") }
local PREFERENCE_SPELL = {
  key = field(STRING, "the store key (default: the key generator's, else the property name)"),
  default = field(ANY, "the value read while the store holds none"),
  suite = field(STRING, "the store (preference domain) to use instead of the host's"),
}

local spell_table = bm.spell

function spell_table.partial(arg)
  if type(arg) == "string" then return make_spell("partial", { type = arg }) end
  if arg == nil then
    fail("bm.spell.partial: missing required field 'type': give the template's type, as bm.spell.partial(\"T\")")
  end
  local fields = check("bm.spell.partial", arg, PARTIAL_SPELL)
  return make_spell("partial", { type = fields.type })
end

function spell_table.final(arg)
  if arg == nil then return make_spell("final", {}) end
  local fields = check("bm.spell.final", arg, FINAL_SPELL)
  return make_spell("final", { optional = fields.optional })
end

function spell_table.preference(arg)
  if arg == nil then return make_spell("preference", {}) end
  if type(arg) == "string" then return make_spell("preference", { key = arg }) end
  local fields = check("bm.spell.preference", arg, PREFERENCE_SPELL)
  local suite = check_suite("bm.spell.preference", fields.suite)
  return make_spell("preference", { key = fields.key, default = fields.default, suite = suite })
end

local builtin_spells = { lazy = true, injectable = true, partial = true, final = true, preference = true,
                         provider = true }
local custom_spells = {}

local DEFINE_SPELL = {
  name = field(required(STRING), "the spell's name: an identifier, used as bm.spell.<name>"),
  get = field(FUNCTION, "the value a read gives (`value` is what is stored)",
    "fun(sender: any, property: string, value: any): any"),
  set = field(FUNCTION, "the value to store", "fun(sender: any, property: string, new: any, old: any): any"),
}
function bm.define_spell(definition)
  local def = check("bm.define_spell", definition, DEFINE_SPELL)
  local name = def.name
  if not smatch(name, "^[%a_][%w_]*$") then
    fail_field("name", "bm.define_spell: field 'name' must be an identifier, got \"" .. name .. "\"")
  end
  if builtin_spells[name] then
    fail("bm.define_spell: '" .. name .. "' is a built-in spell")
  end
  if custom_spells[name] then
    fail("bm.define_spell: a spell named '" .. name .. "' is already defined")
  end
  local spell = { name = name, get = def.get, set = def.set, source = core.location() }
  -- In the registry too: Swift's RegisteredSpell(name) runs these hooks.
  core.register_spell(name, def.get, def.set)
  custom_spells[name] = spell
  spell_table[name] = function(...)
    return make_spell(name, { custom = spell, args = select("#", ...) > 0 and { ... } or nil })
  end
  return spell
end

-- A spell the registry knows by `name` that no script of this state
-- defined (Registry.registerSpell(named:) in Swift): its hooks run in Swift,
-- with the object as the sender (core.spell_hook).
local function registry_spell(name, source)
  local spell = { name = name, source = source }
  function spell.get(object, property, value)
    local meta = class_of(object)
    return core.spell_hook(name, meta and meta.name or typeof(object), object, property, value, nil, false)
  end
  function spell.set(object, property, new, old)
    local meta = class_of(object)
    return core.spell_hook(name, meta and meta.name or typeof(object), object, property, new, old, true)
  end
  return spell
end

-- bm.spell.<name> for a name no script defined: the registry's spell of
-- that name, if there is one (else nil, as for any missing field).
setmetatable(spell_table, {
  __index = function(_, name)
    if type(name) ~= "string" or not smatch(name, "^[%a_][%w_]*$") then return nil end
    local source = core.named_spell(name)
    if source == nil then return nil end
    local spell = registry_spell(name, source)
    return function(...)
      return make_spell(name, { custom = spell, args = select("#", ...) > 0 and { ... } or nil })
    end
  end,
})
