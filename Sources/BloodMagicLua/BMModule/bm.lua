-- The Lua half of the `bm` module: definition-table checks, `bm.class`, the
-- spell descriptors and the per-access logic of spelled properties. It runs
-- once per state as the chunk `=[bm]` with the Swift core functions as its
-- argument, and returns the module table and an internal table.
--
-- Errors are raised with `fail`, which puts the position of the nearest
-- script frame (not the module's own) in front, so that a message reads
-- `settings.lua:12: final property 'id' of Settings is already set`.
--
-- Scripts share the globals and the string metatable, and may replace
-- anything in them (`type`, `pairs`, `next`, `string.match`, the string
-- metatable's `__index` entries). So this chunk takes every function it uses
-- into a local once, when it loads, never calls a method on a string
-- (`s:match` goes through the shared string metatable), and reads definition
-- tables raw: its checks hold whatever a script did before.
local core = ...
local rawget, rawset, rawequal, rawlen = rawget, rawset, rawequal, rawlen
local setmetatable, getmetatable = setmetatable, getmetatable
local type, ipairs, next, select, error, tostring, pcall = type, ipairs, next, select, error, tostring, pcall
local sformat, smatch, tconcat, tsort = string.format, string.match, table.concat, table.sort
local slower, sbyte, sfind = string.lower, string.byte, string.find
local where, field_where = core.where, core.field_where
local generation, lookup = core.generation, core.lookup
local suite_problem = core.suite_problem

local bm = { spell = {} }
local internal = {}

local function fail(message)
  error(where() .. message, 0)
end

-- Raises `message` at the line of field `key` of the definition table the
-- nearest script call passes (the call's own line when the table is not
-- written there), so a mistake on line 6 of a call that starts on line 3
-- reads `file:6:`.
local function fail_field(key, message)
  error(field_where(key) .. message, 0)
end

-- The name among the keys of `candidates` closest to `name` (by edit
-- distance, ignoring case), or nil when none is close.
local function closest_key(name, candidates)
  local lower, best, best_distance = slower(name), nil, nil
  local limit = #name <= 4 and 1 or (#name <= 8 and 2 or 3)
  for candidate in next, candidates do
    if type(candidate) == "string" then
      local other = slower(candidate)
      -- Levenshtein distance, one row at a time.
      local previous = {}
      for j = 0, #other do previous[j] = j end
      for i = 1, #lower do
        local current = { [0] = i }
        local ci = sbyte(lower, i)
        for j = 1, #other do
          local cost = (ci == sbyte(other, j)) and 0 or 1
          local v = previous[j - 1] + cost
          if previous[j] + 1 < v then v = previous[j] + 1 end
          if current[j - 1] + 1 < v then v = current[j - 1] + 1 end
          current[j] = v
        end
        previous = current
      end
      local distance = previous[#other]
      if distance <= limit and (best_distance == nil or distance < best_distance
          or (distance == best_distance and candidate < best)) then
        best, best_distance = candidate, distance
      end
    end
  end
  return best
end

local function typeof(v)
  local t = type(v)
  if t == "table" then
    local mt = getmetatable(v)
    local name = type(mt) == "table" and rawget(mt, "__name")
    if type(name) == "string" then return name end
  end
  return t
end

---------------------------------------------------------------------------
-- Definition tables
---------------------------------------------------------------------------

local function is_string(v) return type(v) == "string" end
local function is_function(v) return type(v) == "function" end
local function is_boolean(v) return type(v) == "boolean" end
local function is_table(v) return type(v) == "table" end
local function is_any(_) return true end

-- A rule checks one field (`check`, and `what` for the message) and names
-- the field's type in the editor annotations (`lua`, LuaCATS syntax).
local STRING = { check = is_string, what = "a string", lua = "string" }
local FUNCTION = { check = is_function, what = "a function", lua = "function" }
local BOOLEAN = { check = is_boolean, what = "a boolean", lua = "boolean" }
local TABLE = { check = is_table, what = "a table", lua = "table" }
local ANY = { check = is_any, what = "any value", lua = "any" }
local CONTAINER = { check = function(v) return type(v) == "string" or type(v) == "table" end,
                    what = "a class name or a class", lua = "string|bm.Class" }

local function required(rule) return { check = rule.check, what = rule.what, lua = rule.lua, required = true } end

-- A field of a definition table: its rule, what it means in one line, and
-- its type for the editor annotations when more precise than the rule's.
-- `bmlua types` writes the annotations from these same tables (see
-- internal.api), so they cannot drift from what the checks accept.
local function field(rule, doc, lua)
  return { check = rule.check, what = rule.what, required = rule.required, lua = lua or rule.lua, doc = doc }
end

-- The schema each definition function checks against, by function name
-- (tools suggest the closest field for an unknown one).
local schemas = {}

-- A key as messages show it: the string itself, anything else by type
-- (never by tostring, which would run the key's own __tostring).
local function show_key(key)
  if type(key) == "string" then return "'" .. key .. "'" end
  if type(key) == "number" or type(key) == "boolean" then return "[" .. tostring(key) .. "]" end
  return "[" .. typeof(key) .. "]"
end

-- Checks a definition table against a schema: unknown fields, missing
-- required fields and field types, each named in the message. Returns the
-- fields it checked, read raw into a new table, which is all the caller
-- uses: a definition's metatable (an __index that answers later reads
-- differently) cannot slip anything past the checks.
local function check(fname, def, schema)
  schemas[fname] = schema
  if type(def) ~= "table" then
    fail(fname .. ": expected a definition table, got " .. typeof(def))
  end
  for key in next, def do
    if type(key) == "string" and rawget(schema, key) == nil then
      fail_field(key, fname .. ": unknown field " .. show_key(key))
    elseif type(key) ~= "string" then
      fail(fname .. ": unknown field " .. show_key(key))
    end
  end
  local fields = {}
  for key, rule in next, schema do
    local value = rawget(def, key)
    if value == nil then
      if rule.required then fail(fname .. ": missing required field '" .. key .. "'") end
    elseif not rule.check(value) then
      fail_field(key, fname .. ": field '" .. key .. "' must be " .. rule.what .. ", got " .. typeof(value))
    end
    fields[key] = value
  end
  return fields
end

-- A protocol list: an array of names, returned sorted and without duplicates
-- (read raw: 1..rawlen, and every key checked).
local function protocol_list(fname, list)
  if list == nil then return nil end
  if type(list) ~= "table" then
    fail_field("protocols", fname .. ": field 'protocols' must be an array of protocol names, got " .. typeof(list))
  end
  local count = rawlen(list)
  for key in next, list do
    if type(key) ~= "number" or key < 1 or key > count or key % 1 ~= 0 then
      fail_field("protocols",
        fname .. ": field 'protocols' must be an array of protocol names (found key " .. show_key(key) .. ")")
    end
  end
  local seen, out = {}, {}
  for i = 1, count do
    local name = rawget(list, i)
    if type(name) ~= "string" or name == "" then
      fail_field("protocols", fname .. ": protocols[" .. i .. "] must be a protocol name, got " .. typeof(name))
    end
    if not seen[name] then seen[name] = true; out[#out + 1] = name end
  end
  if #out == 0 then fail_field("protocols", fname .. ": field 'protocols' is empty") end
  tsort(out)
  return out
end

-- A preference suite: refused, at the definition's line, unless it is a
-- valid suite name (Swift's PreferenceSuiteName rules).
local function check_suite(fname, suite)
  if suite == nil then return nil end
  local problem = suite_problem(suite)
  if problem ~= nil then fail(fname .. ": " .. problem) end
  return suite
end

---------------------------------------------------------------------------
-- Classes (declared here so registrations can take a class for `container`)
---------------------------------------------------------------------------

local classes = {}                               -- name -> class table
local info = setmetatable({}, { __mode = "k" })  -- class table -> meta
local instance_meta = setmetatable({}, { __mode = "k" }) -- instance metatable -> meta

local function class_of(object)
  if type(object) ~= "table" then return nil end
  local meta = instance_meta[getmetatable(object)]
  return meta
end

local function container_name(fname, value)
  if value == nil then return nil end
  if type(value) == "string" then
    if value == "" then fail_field("container", fname .. ": field 'container' is empty") end
    return value
  end
  local meta = info[value]
  if meta then return meta.name end
  fail_field("container", fname .. ": field 'container' must be a class name or a class, got " .. typeof(value))
end

---------------------------------------------------------------------------
-- Registry
---------------------------------------------------------------------------

-- A registration: { id, kind } for people, and under a private key the
-- token Swift made for it (a userdata, which no script can forge), which is
-- all that `unregister` trusts.
local TOKEN = setmetatable({}, { __name = "bm.registration.key" })
local Registration = {}
Registration.__index = Registration
Registration.__name = "bm.registration"
function Registration:unregister()
  return core.unregister(type(self) == "table" and rawget(self, TOKEN) or nil)
end
function Registration.__tostring(self)
  return "bm.registration #" .. tostring(rawget(self, "id")) .. " (" .. tostring(rawget(self, "kind")) .. ")"
end

local function registration(token, id, kind)
  return setmetatable({ id = id, kind = kind, [TOKEN] = token }, Registration)
end

local INITIALIZER = {
  type = field(STRING, "the property's declared type name (\"RequestManager\")"),
  protocols = field(TABLE, "the property's declared protocol set, matched exactly and order-free", "string[]"),
  container = field(CONTAINER, "only for properties of this container type, exactly (subclasses do not match)"),
  init = field(required(FUNCTION), "makes the value; `sender` is the container object (a function without "
    .. "parameters gets none)", "fun(sender: any): any"),
  scope = field(STRING, "one value per object (\"instance\", the default) or one per registry (\"singleton\")",
    "\"instance\"|\"singleton\""),
}
-- bm.singleton's table: the same fields but `scope`.
local SINGLETON = {}
for key, rule in next, INITIALIZER do
  if key ~= "scope" then SINGLETON[key] = rule end
end

-- A definition of bm.initializer or bm.singleton read in one raw pass,
-- when every key is one of its fields and every value of that field's type
-- and `init` is there: returns true and the fields. Anything else returns
-- nothing, and the caller runs the generic `check`, whose error is then the
-- one the script sees. (Loading thousands of definitions is the common
-- case this keeps cheap: no table of checked fields, no rule calls.)
local function plain_initializer(def, singleton)
  if type(def) ~= "table" then return end
  local t, protocols, container, init, scope
  for key, value in next, def do
    local tv = type(value)
    if key == "type" and tv == "string" then t = value
    elseif key == "init" and tv == "function" then init = value
    elseif key == "protocols" and tv == "table" then protocols = value
    elseif key == "container" and (tv == "string" or tv == "table") then container = value
    elseif key == "scope" and tv == "string" and not singleton then scope = value
    else return end
  end
  if init == nil then return end
  return true, t, protocols, container, init, scope
end

local function register_initializer(fname, definition, scope)
  local schema = scope == "singleton" and SINGLETON or INITIALIZER
  local plain, t, protocols, container, init, def_scope = plain_initializer(definition, scope == "singleton")
  if plain then
    schemas[fname] = schema
  else
    local def = check(fname, definition, schema)
    t, protocols, container, init, def_scope = def.type, def.protocols, def.container, def.init, def.scope
  end
  protocols = protocol_list(fname, protocols)
  if t == nil and protocols == nil then
    fail(fname .. ": missing required field 'type' (or 'protocols')")
  end
  scope = scope or def_scope or "instance"
  if scope ~= "instance" and scope ~= "singleton" then
    fail_field("scope",
      fname .. ": field 'scope' must be \"instance\" or \"singleton\", got \"" .. tostring(scope) .. "\"")
  end
  container = container_name(fname, container)
  local token, id = core.register_initializer(t, protocols, container, scope, init)
  return registration(token, id, "initializer")
end

function bm.initializer(def)
  return register_initializer("bm.initializer", def, nil)
end

function bm.singleton(def)
  if type(def) == "table" and rawget(def, "scope") ~= nil then
    fail_field("scope", "bm.singleton: unknown field 'scope' (a singleton's scope is always \"singleton\")")
  end
  return register_initializer("bm.singleton", def, "singleton")
end

local HOOK = {
  container = field(CONTAINER, "only for objects of this container type (default: any container)"),
  property = field(required(STRING), "the injected property (lazy, injectable or partial) it follows"),
  fn = field(required(FUNCTION), "runs once after the property is injected", "fun(sender: any, value: any)"),
}
function bm.hook(definition)
  local def = check("bm.hook", definition, HOOK)
  local token, id = core.register_hook(container_name("bm.hook", def.container), def.property, def.fn)
  return registration(token, id, "hook")
end

local PREFERENCE = {
  container = field(CONTAINER, "only for this container type (default: any container)"),
  property = field(required(STRING), "the preference property to override"),
  key = field(STRING, "the store key to use instead of the property's"),
  default = field(ANY, "the value read while the store holds none"),
  suite = field(STRING, "the store (preference domain) to use instead of the host's"),
}
function bm.preference(definition)
  local def = check("bm.preference", definition, PREFERENCE)
  if def.key == nil and def.default == nil and def.suite == nil then
    fail("bm.preference: nothing to override: give at least one of 'key', 'default' or 'suite'")
  end
  local suite = check_suite("bm.preference", def.suite)
  local token, id = core.register_preference(container_name("bm.preference", def.container), def.property,
    def.key, def.default, suite)
  return registration(token, id, "preference")
end

local PARTIAL = {
  type = field(required(STRING), "the type of the partial properties it builds"),
  init = field(required(FUNCTION), "builds a new value for each object that first reads such a property",
    "fun(sender: any): any"),
}
function bm.partial(definition)
  local def = check("bm.partial", definition, PARTIAL)
  local token, id = core.register_partial(def.type, def.init)
  return registration(token, id, "partial")
end

local RESOLVE = {
  container = field(ANY, "the container: a class name, a class, or an object (then the sender)",
    "string|bm.Class|table|userdata"),
  protocols = field(TABLE, "the protocol set to resolve instead of (or with) the type", "string[]"),
}
-- The resolution cache of bm.resolve(type) without options (no container):
-- type name -> { gen, init, value } (an array, for the C side), valid while
-- the registry's generation is `gen`, as for properties (see refill). The C
-- bm.resolve (core.cached_resolve, below) serves current entries itself and
-- calls this function for everything else.
local resolve_cache = {}
local function resolve(type_name, options)
  -- Not while Swift resolves on this thread: a singleton being made holds
  -- its lock, which the lookup would take again to see whether it exists.
  local gen, busy = generation()
  if options == nil and not busy and type(type_name) == "string" then
    local entry = resolve_cache[type_name]
    if entry == nil or entry[1] ~= gen then
      local g, how, payload = lookup(type_name, nil, nil, nil)
      entry = { g, how == "init" and payload or nil, how == "value" and payload or nil }
      resolve_cache[type_name] = entry
    end
    if entry[1] == gen then
      local init = entry[2]
      if init ~= nil then return (init(nil)) end
      local value = entry[3]
      if value ~= nil then return value end
    end
  end
  if type_name ~= nil and type(type_name) ~= "string" then
    fail("bm.resolve: argument #1 must be a type name, got " .. typeof(type_name))
  end
  local protocols, container, sender
  if options ~= nil then
    options = check("bm.resolve", options, RESOLVE)
    protocols = protocol_list("bm.resolve", options.protocols)
    local c = options.container
    if c ~= nil then
      local meta = class_of(c)
      if meta then
        container, sender = meta.name, c
      elseif type(c) == "userdata" then
        sender = c   -- a Swift object: its dynamic type is the container
      else
        container = container_name("bm.resolve", c)
      end
    end
  end
  if type_name == nil and protocols == nil then
    fail("bm.resolve: argument #1 must be a type name, got nil")
  end
  return core.resolve(type_name, protocols, container, sender)
end
bm.resolve = core.cached_resolve(resolve_cache, resolve)

function bm.entries()
  return core.entries()
end

---------------------------------------------------------------------------
-- Force injection and preference keys
---------------------------------------------------------------------------

-- What a resolver is asked about a property nothing is registered for.
-- The request is built here, from these fields only (required: always there).
local RESOLVER_REQUEST = {
  container = field(required(STRING),
    "the container's type name: a Lua class, a Swift class, or the type of a static property"),
  property = field(required(STRING), "the property's name"),
  type = field(STRING, "the property's type name (nil for a protocol set)"),
  protocols = field(TABLE, "the property's protocol set (nil for a type name)", "string[]"),
  spell = field(required(STRING), "how the property is spelled", "\"lazy\"|\"injectable\""),
  sender = field(ANY, "the container object: a Lua object, or a Swift object's userdata"),
}

-- What a resolver returns to leave a property alone (returning nil, or
-- nothing, does the same).
bm.skip = setmetatable({}, { __name = "bm.skip", __tostring = function() return "bm.skip" end,
                             __newindex = function() fail("bm.skip is read-only") end })

-- bm.resolver(fn): fn(request) is asked for every lazy or injectable
-- property (Lua or Swift) that no initializer serves; it returns the value,
-- or bm.skip / nil for "not this one" (then the usual default applies).
function bm.resolver(fn)
  if type(fn) ~= "function" then
    fail("bm.resolver: argument #1 must be a function(request), got " .. typeof(fn))
  end
  local skip = bm.skip
  local function ask(container, property, type_name, protocols, spell, sender)
    local answer = fn({ container = container, property = property, type = type_name, protocols = protocols,
                        spell = spell, sender = sender })
    if rawequal(answer, skip) then return nil end
    return answer
  end
  local token, id = core.register_resolver(ask, fn)
  return registration(token, id, "resolver")
end

-- bm.preference_keys(fn): fn(container, property) makes the store key of
-- every preference property that names no key (Swift's @Preference too).
function bm.preference_keys(fn)
  if type(fn) ~= "function" then
    fail("bm.preference_keys: argument #1 must be a function(container, property), got " .. typeof(fn))
  end
  local token, id = core.register_preference_keys(fn)
  return registration(token, id, "preference_keys")
end

---------------------------------------------------------------------------
-- Live reload
---------------------------------------------------------------------------

-- bm.on_reload(fn): fn(changes) runs after each reload of the host's
-- scripts (ScriptHost.reload(), or a watched file changing). After a
-- successful reload, the callbacks the new scripts registered run, in the
-- new state; after a failed one, those of the wiring still in force.
-- `changes` is { ok, files, added, removed, replaced, errors }: the files
-- that changed, the registrations (as bm.entries() lists them), and the
-- `file:line: message` of each failure.
local reload_callbacks = {}
local MAX_RELOAD_CALLBACKS = 100

function bm.on_reload(fn)
  if type(fn) ~= "function" then
    fail("bm.on_reload: argument #1 must be a function(changes), got " .. typeof(fn))
  end
  if #reload_callbacks >= MAX_RELOAD_CALLBACKS then
    fail("bm.on_reload: at most " .. MAX_RELOAD_CALLBACKS .. " callbacks can be registered")
  end
  reload_callbacks[#reload_callbacks + 1] = { fn = fn, source = core.location() }
end

function internal.reload_callback_count()
  return #reload_callbacks
end

-- Drops the callbacks after the first `count` (a script that failed to load).
function internal.forget_reload_callbacks(count)
  for i = #reload_callbacks, count + 1, -1 do reload_callbacks[i] = nil end
end

-- A copy of `changes` (two levels: its lists, and their entry tables), so
-- that what one callback does to its table no other sees.
local function copy_changes(changes)
  local copy = {}
  for key, value in next, changes do
    if type(value) == "table" then
      local list = {}
      for i, item in ipairs(value) do
        if type(item) == "table" then
          local row = {}
          for k, v in next, item do row[k] = v end
          list[i] = row
        else
          list[i] = item
        end
      end
      copy[key] = list
    else
      copy[key] = value
    end
  end
  return copy
end

-- Runs every callback with a copy of `changes`, each in protected mode.
-- Returns the message of each that failed.
function internal.run_reload_callbacks(changes)
  local errors = {}
  for i = 1, #reload_callbacks do
    local entry = reload_callbacks[i]
    local ok, message = pcall(entry.fn, copy_changes(changes))
    if not ok then
      local text = type(message) == "string" and message or ("(error object is a " .. typeof(message) .. " value)")
      errors[#errors + 1] = text .. " (bm.on_reload callback registered at " .. entry.source .. ")"
    end
  end
  return errors
end

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

-- lazy("T"), lazy { type = "T", protocols = {...}, optional = true }
local function typed_spell(kind)
  local fname = "bm.spell." .. kind
  return function(arg)
    local def
    if type(arg) == "string" then
      def = { type = arg }
    elseif arg == nil then
      fail(fname .. ": missing required field 'type' (or 'protocols'): give the property's type, as "
        .. fname .. "(\"T\") or " .. fname .. " { type = \"T\" }")
    else
      local fields = check(fname, arg, TYPED)
      def = { type = fields.type, protocols = protocol_list(fname, fields.protocols), optional = fields.optional }
    end
    if def.type == nil and def.protocols == nil then
      fail(fname .. ": missing required field 'type' (or 'protocols')")
    end
    return make_spell(kind, def)
  end
end

bm.spell.lazy = typed_spell("lazy")
bm.spell.injectable = typed_spell("injectable")

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

local builtin_spells = { lazy = true, injectable = true, partial = true, final = true, preference = true }
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
  custom_spells[name] = spell
  core.note_spell(name)
  spell_table[name] = function(...)
    return make_spell(name, { custom = spell, args = select("#", ...) > 0 and { ... } or nil })
  end
  return spell
end

---------------------------------------------------------------------------
-- Resolution of spelled properties (with cycle detection)
---------------------------------------------------------------------------

-- The resolutions in progress, as parallel arrays (no table per step): the
-- object, the property and, for steps run without pcall (the cached path),
-- the thread running them. `depth` is the top. A step run without pcall that
-- raised leaves its frame behind when the error is caught: a step that
-- returns clears its frame and anything above it, and before a cycle is
-- reported, or once the stack has grown by PRUNE_EVERY, `prune` asks which
-- frames still run (core.live_frames) and drops the rest. Cleared slots hold
-- false, not nil (storing into a nil slot takes Lua's slow path); holes left
-- by `prune` are false too, and every slot above `depth` is false or nil.
local stack_object, stack_property, stack_thread = {}, {}, {}
local depth = 0
local PRUNE_EVERY = 16
local prune_at = PRUNE_EVERY
local index_prototype   -- a closure of every class's __index prototype (set with bm.class)

local function label(meta, property) return meta.name .. "." .. property end

-- How many resolutions may nest. A resolution may re-enter its own
-- initializers through new objects (a tree that stops at some depth); one
-- that never stops reaches this limit, or Lua's C stack limit (about 200
-- nested calls) first, and gets the error with its chain. The limit is
-- below Swift's (200) because every nested step costs Lua a C call.
local MAX_DEPTH = core.max_depth

-- The labels of the frames 1..depth (stale ones included: when an overflow
-- unwinds to a pcall, the frames above it are exactly the steps that ran).
local function frame_labels()
  local chain = {}
  for k = 1, depth do
    local o = stack_object[k]
    if o then
      local m = class_of(o)
      chain[#chain + 1] = (m and m.name or typeof(o)) .. "." .. stack_property[k]
    end
  end
  return chain
end

-- The cycle a chain ends with, when the same steps come back at least three
-- times in a row: "dependency cycle: " and one round of them, closed, shown
-- from where the repetition starts (as the Swift tracker reports it).
local function repeating_cycle(chain)
  local n = #chain
  for period = 1, n // 3 do
    local run = 0
    while run + period < n and chain[n - run] == chain[n - run - period] do run = run + 1 end
    if run >= 2 * period then
      local start = n - run - period + 1
      local round = {}
      for k = start, start + period - 1 do round[#round + 1] = chain[k] end
      round[#round + 1] = chain[start]
      return "dependency cycle: " .. tconcat(round, " -> ")
    end
  end
  return nil
end

-- The chain, with its middle left out when it is long.
local function shown_chain(chain)
  local n = #chain
  if n <= 20 then return tconcat(chain, " -> ") end
  local shown = {}
  for k = 1, 4 do shown[#shown + 1] = chain[k] end
  shown[#shown + 1] = "… " .. (n - 16) .. " more …"
  for k = n - 11, n do shown[#shown + 1] = chain[k] end
  return tconcat(shown, " -> ")
end

-- The error for a chain that reached the limit: the cycle it repeats, else
-- "too deep" with the chain.
local function runaway_message(chain)
  return repeating_cycle(chain)
    or ("resolution deeper than " .. MAX_DEPTH .. " nested steps (a runaway recursion through initializers?): "
        .. shown_chain(chain))
end

-- Whether an error is Lua running out of stack (its C stack limit, its
-- stack size, or the error handler failing for the same reason).
local function is_overflow(message)
  return type(message) == "string" and (sfind(message, "stack overflow", 1, true) ~= nil
    or sfind(message, "error in error handling", 1, true) ~= nil)
end

-- Drops the frames of steps that no longer run: they become holes (false)
-- below live frames, and are cut off at the top.
local function prune()
  local live = core.live_frames(index_prototype, stack_object, stack_property, stack_thread, depth)
  for i = 1, depth do
    if not live[i] then stack_object[i] = false; stack_thread[i] = false end
  end
  while depth > 0 and stack_object[depth] == false do
    depth = depth - 1
  end
  prune_at = depth + PRUNE_EVERY
end

-- Raises the cycle error when `property` of `object` is being resolved
-- already (called only when depth > 0).
local function check_cycle(object, property, meta)
  for i = 1, depth do
    if rawequal(stack_object[i], object) and stack_property[i] == property then
      prune()
      for j = 1, depth do
        if rawequal(stack_object[j], object) and stack_property[j] == property then
          local chain = {}
          for k = j, depth do
            local o = stack_object[k]
            if o then
              local m = class_of(o)
              chain[#chain + 1] = (m and m.name or typeof(o)) .. "." .. stack_property[k]
            end
          end
          chain[#chain + 1] = label(meta, property)
          fail("dependency cycle: " .. tconcat(chain, " -> "))
        end
      end
      return
    end
  end
  if depth >= prune_at then prune() end
  if depth >= MAX_DEPTH then
    prune()
    if depth >= MAX_DEPTH then
      local chain = frame_labels()
      chain[#chain + 1] = label(meta, property)
      fail(runaway_message(chain))
    end
  end
end

-- Ends the step whose frame is `d`, with any frame an error left above it.
-- (Coroutines that interleave resolutions can have ended it already.)
local function pop(d)
  if depth < d then return end
  for i = depth, d, -1 do
    stack_object[i] = false
    stack_thread[i] = false
  end
  depth = d - 1
end

local function with_cycle_check(object, property, meta, produce, spell)
  if depth > 0 then check_cycle(object, property, meta) end
  local d = depth + 1
  depth = d
  stack_object[d], stack_property[d], stack_thread[d] = object, property, false
  local ok, value, hooks = pcall(produce, object, property, meta, spell)
  if not ok and is_overflow(value) and depth > 1 then
    -- Lua ran out of stack above this step: the frames from here up are
    -- the chain that did it. A repeating chain is a cycle; otherwise the
    -- overflow keeps its message, with the chain.
    local chain = frame_labels()
    local cycle = repeating_cycle(chain)
    value = cycle and (where() .. cycle) or (value .. " (resolving " .. shown_chain(chain) .. ")")
  end
  pop(d)
  if not ok then error(value, 0) end
  return value, hooks
end

-- What runs once a value is stored in an injected property: the registry's
-- hooks, then the class's method named `injected` (`<property>Injected`) and
-- its `propertyInjected`. `hooks` is the registry's hooks of the generation
-- whose lookup made the value (a box from core.lookup, core.resolve_property
-- or core.partial), `true` for those in force now (a value nothing in the
-- registry made), or nil/false for none. Returns whether there was nothing
-- at all to run (see entry.plain).
local function after_inject(object, property, meta, value, hooks, injected)
  if hooks then core.run_hooks(meta.name, property, object, value, hooks) end
  local class = meta.class
  local specific = class[injected]
  if specific ~= nil and type(specific) == "function" then specific(object, value) end
  local general = class.propertyInjected
  if general ~= nil and type(general) == "function" then general(object, property, value) end
  return not hooks and specific == nil and general == nil
end

-- What serves a property when nothing is registered for it: `true` and a new
-- instance of the class of that name for lazy, `true, nil` when optional,
-- else `false` (the property has no value).
local function fallback(spell)
  if spell.kind == "lazy" and spell.type then
    local class = classes[spell.type]
    if class then return true, class.new() end
  end
  if spell.optional then return true, nil end
  return false
end

-- The error for an initializer that returned nil for a property that is
-- not optional (Swift raises the same for the reads it serves).
local function returned_nil(meta, property, spell, source)
  local wanted = spell.type or ("any " .. tconcat(spell.protocols or {}, " & "))
  fail(meta.name .. "." .. property .. ": the initializer registered at " .. tostring(source)
    .. " returned nil, but the property is a non-optional " .. wanted
    .. " (return a value, or declare the spell with optional = true)")
end

-- Each producer returns the value and the hooks that follow it (see after_inject).
local function lazy_value(object, property, meta, spell)
  local found, value, hooks = core.resolve_property(spell.type, spell.protocols, meta.name, object, property,
    spell.kind, spell.optional == true)
  if found then return value, hooks end
  local served, default = fallback(spell)
  if served then return default, true end
  fail(value)
end

local function partial_value(object, property, meta, spell)
  return core.partial(spell.type, meta.name, object, property)
end

local produce = { lazy = lazy_value, injectable = lazy_value, partial = partial_value }

-- A property the cache says nothing is registered for: its fallback, else
-- Swift's answer (the message).
local function default_value(object, property, meta, spell)
  local served, value = fallback(spell)
  if served then return value, true end
  return lazy_value(object, property, meta, spell)
end

-- The resolution cache: meta.cache[property] = { gen =, init = | value = |
-- none = true, hooks =, injected = } says what the registry serves that
-- property of that class with, for as long as the registry's generation is
-- `gen` (core.generation reads it). `init` is a Lua initializer, called from
-- the class's __index; `value` a singleton already made. An entry with none
-- of them sends the read to Swift. `hooks`: the registry hooks of the
-- entry's generation (a box for core.run_hooks), or false when none apply.
local function refill(meta, property, spell)
  local gen, how, payload, hooks, source = lookup(spell.type, spell.protocols, meta.name, property)
  local entry = { gen = gen, hooks = hooks, injected = property .. "Injected", source = source }
  if how == "init" then entry.init = payload
  elseif how == "value" then entry.value = payload
  elseif how == "none" then entry.none = true end
  meta.cache[property] = entry
  return entry
end

-- The read get_injected handed back to __index after a refill: if it comes
-- back (the registry changed again meanwhile), it goes the slow way, so a
-- registry that keeps changing cannot make the two call each other forever.
local retry_object, retry_property

-- Injected spells store the value raw in the object, so later reads do not
-- reach __index at all; assigning nil removes it and the next read injects anew.
local function get_injected(object, property, meta, spell)
  local value
  local retried = rawequal(retry_object, object) and retry_property == property
  retry_object = nil
  if spell.kind ~= "partial" and not retried then
    local gen, busy = generation()
    local entry = meta.cache[property]
    if not busy and (entry == nil or entry.gen ~= gen) then entry = refill(meta, property, spell) end
    if not busy and entry.gen == gen then
      if entry.init ~= nil then   -- the cached path, in __index
        retry_object, retry_property = object, property
        value = meta.index(object, property)
        retry_object = nil
        return value
      end
      if entry.value ~= nil then
        value = entry.value
        rawset(object, property, value)
        after_inject(object, property, meta, value, entry.hooks, entry.injected)
        return value
      end
      if entry.none then
        local hooks
        value, hooks = with_cycle_check(object, property, meta, default_value, spell)
        if value ~= nil then
          rawset(object, property, value)
          after_inject(object, property, meta, value, hooks, property .. "Injected")
        end
        return value
      end
    end
  end
  local hooks
  value, hooks = with_cycle_check(object, property, meta, produce[spell.kind], spell)
  if value ~= nil then
    rawset(object, property, value)
    after_inject(object, property, meta, value, hooks, property .. "Injected")
  end
  return value
end

local NIL = setmetatable({}, { __name = "bm.nil" })
local finals = setmetatable({}, { __mode = "k" })

local function get_final(object, property, meta, spell)
  local slots = finals[object]
  local value = slots and slots[property]
  if value == nil then
    if spell.optional then return nil end
    fail("final property '" .. property .. "' of " .. meta.name .. " is not set yet")
  end
  if value == NIL then return nil end
  return value
end

local function set_final(object, property, value, meta, _spell)
  local slots = finals[object]
  if slots == nil then slots = {}; finals[object] = slots end
  if slots[property] ~= nil then
    fail("final property '" .. property .. "' of " .. meta.name .. " is already set")
  end
  if value == nil then slots[property] = NIL else slots[property] = value end
end

local function get_preference(_object, property, meta, spell)
  return core.preference_get(meta.name, property, spell.key, spell.default, spell.suite)
end

local function set_preference(_object, property, value, meta, spell)
  core.preference_set(meta.name, property, spell.key, spell.suite, value)
end

local customs = setmetatable({}, { __mode = "k" })

local function get_custom(object, property, _meta, spell)
  local slots = customs[object]
  local value = slots and slots[property]
  local get = spell.custom.get
  if get then return get(object, property, value) end
  return value
end

local function set_custom(object, property, value, _meta, spell)
  local slots = customs[object]
  if slots == nil then slots = {}; customs[object] = slots end
  local set = spell.custom.set
  if set then value = set(object, property, value, slots[property]) end
  slots[property] = value
end

local getters = { lazy = get_injected, injectable = get_injected, partial = get_injected,
                  final = get_final, preference = get_preference }
local setters = { final = set_final, preference = set_preference }

local function spell_get(object, property, meta, spell)
  local get = getters[spell.kind]
  if get then return get(object, property, meta, spell) end
  return get_custom(object, property, meta, spell)
end

local function spell_set(object, property, value, meta, spell)
  local set = setters[spell.kind]
  if set then return set(object, property, value, meta, spell) end
  if getters[spell.kind] then return rawset(object, property, value) end  -- lazy, injectable, partial
  return set_custom(object, property, value, meta, spell)
end

---------------------------------------------------------------------------
-- bm.class
---------------------------------------------------------------------------

-- Moves whenever a class table gets a new key (its __newindex), so that a
-- cache entry can remember "no hook method anywhere" (entry.plain) until
-- some class, this one or an ancestor, gains a field.
local class_version = 0

-- A class's __index: spelled properties go to their spell, anything else to
-- the class. The first read of an injected property whose cache entry is
-- current and names a Lua initializer is served right here (the hot path):
-- one frame on the resolution stack, no pcall, no call into Swift but
-- core.generation. Its arguments are what core.live_frames looks for.
local function index_for(spells, class, meta, cache)
  return function(object, key)
    local spell = spells[key]
    if spell == nil then return class[key] end
    local entry = cache[key]
    if entry ~= nil and entry.init ~= nil then
      local gen, busy, thread = generation()
      if entry.gen == gen and not busy then
        if depth > 0 then check_cycle(object, key, meta) end
        local d = depth + 1
        depth = d
        stack_object[d], stack_property[d], stack_thread[d] = object, key, thread
        local value = entry.init(object)
        if depth == d then
          stack_object[d] = false
          stack_thread[d] = false
          depth = d - 1
        else
          pop(d)
        end
        if value == nil then
          if not spell.optional then returned_nil(meta, key, spell, entry.source) end
        else
          rawset(object, key, value)
          if entry.plain ~= class_version
              and after_inject(object, key, meta, value, entry.hooks, entry.injected) then
            entry.plain = class_version
          end
        end
        return value
      end
    end
    return spell_get(object, key, meta, spell)
  end
end
index_prototype = index_for({}, {}, {}, {})

function bm.class(name, def, super)
  if type(name) ~= "string" or not smatch(name, "^[%a_][%w_%.]*$") then
    local got = type(name) == "string" and ("\"" .. name .. "\"") or typeof(name)
    fail("bm.class: argument #1 must be a class name, got " .. got)
  end
  if def ~= nil and type(def) ~= "table" then
    fail("bm.class: argument #2 must be a table of fields, got " .. typeof(def))
  end
  if super ~= nil and info[super] == nil then
    fail("bm.class: argument #3 must be a class made by bm.class, got " .. typeof(super))
  end
  local super_meta = super and info[super]
  local class = {}
  local spells = {}
  if super_meta then
    for key, spell in next, super_meta.spells do spells[key] = spell end
  end
  for key, value in next, def or {} do
    if type(key) ~= "string" then
      fail("bm.class: field names must be strings, got " .. typeof(key) .. " in class " .. name)
    end
    if is_spell(value) then
      spells[key] = value
    else
      spells[key] = nil   -- a plain field overrides an inherited spell
      rawset(class, key, value)
    end
  end
  local meta = { name = name, super = super_meta, spells = spells, class = class, source = core.location(), cache = {} }
  info[class] = meta

  local mt = { __name = name }
  instance_meta[mt] = meta
  if next(spells) == nil then
    mt.__index = class
  else
    mt.__index = index_for(spells, class, meta, meta.cache)
    meta.index = mt.__index
    mt.__newindex = function(object, key, value)
      local spell = spells[key]
      if spell then return spell_set(object, key, value, meta, spell) end
      rawset(object, key, value)
    end
  end
  mt.__tostring = function(object)
    local custom = class.__tostring
    if type(custom) == "function" then return custom(object) end
    return sformat("%s: %p", name, object)
  end
  meta.instance_mt = mt

  function class.new(fields, ...)
    if rawequal(fields, class) then fields = ... end   -- Class:new { ... }
    if fields ~= nil and type(fields) ~= "table" then
      fail(name .. ".new: argument #1 must be a table of fields, got " .. typeof(fields))
    end
    local object = setmetatable({}, mt)
    if fields then
      for key, value in next, fields do object[key] = value end
    end
    local init = class.init
    if type(init) == "function" then init(object) end
    return object
  end

  setmetatable(class, {
    __index = super,
    __newindex = function(t, k, v)
      class_version = class_version + 1
      rawset(t, k, v)
    end,
    __name = "bm.class",
    __tostring = function() return "class " .. name end,
  })
  classes[name] = class
  core.note_class(name, super_meta and super_meta.name or nil, meta.source)
  return class
end

function bm.class_of(object)
  local meta = class_of(object)
  return meta and meta.class or nil
end

function bm.is_instance(object, class)
  local meta = class_of(object)
  local target = info[class]
  while meta do
    if meta == target then return true end
    meta = meta.super
  end
  return false
end

function internal.forget_class(name)
  classes[name] = nil
end

function internal.forget_spell(name)
  custom_spells[name] = nil
  spell_table[name] = nil
end

-- The keys of `t`, sorted (for stable tool output).
local function sorted_keys(t)
  local keys = {}
  for key in next, t do keys[#keys + 1] = key end
  tsort(keys)
  return keys
end

-- Every spelled property of every class, for tools:
-- { { class =, property =, kind =, type =, protocols =, optional =, source = } }
function internal.spell_report()
  local rows = {}
  for _, name in ipairs(sorted_keys(classes)) do
    local meta = info[classes[name]]
    for _, property in ipairs(sorted_keys(meta.spells)) do
      local spell = meta.spells[property]
      rows[#rows + 1] = { class = name, property = property, kind = spell.kind, type = spell.type,
                          protocols = spell.protocols, optional = spell.optional == true,
                          source = spell.source or meta.source }
    end
  end
  return rows
end

-- The dry run of `bmlua check`. The checker calls these from Swift one
-- step per call, so that each step has its own instruction budget and an
-- error reaches it with its position: dry_new makes a fresh instance of a
-- class, dry_read reads one property of it (both raise what the scripts
-- raise), and dry_settle clears what a failed step left behind.
local dry_objects = {}

-- Makes the dry run's instance of class `name`.
function internal.dry_new(name)
  dry_objects[name] = nil
  dry_objects[name] = classes[name].new()
end

-- The dry run's instance of class `name`, or nil.
function internal.dry_object(name)
  return dry_objects[name]
end

-- Reads `property` of the dry run's instance of class `name`.
function internal.dry_read(name, property)
  local object = dry_objects[name]
  if object ~= nil then return object[property] end
end

-- Reads each of `properties` (an array of names) of the dry run's instance
-- of class `name`, each in protected mode. Returns three arrays: the error
-- message of each failed read (false when it worked), whether it gave nil,
-- and the chain of a failure that ran out of stack (see dry_settle). One
-- call for a class's properties; a step that never ends uses up the budget
-- of the whole call, which then raises, and the checker reads the
-- properties again one call each.
function internal.dry_read_all(name, properties)
  local object = dry_objects[name]
  local errors, nils, chains = {}, {}, {}
  for i = 1, #properties do
    errors[i], nils[i], chains[i] = false, false, false
    if object ~= nil then
      local ok, value = pcall(function() return object[properties[i]] end)
      if ok then
        nils[i] = value == nil
      else
        errors[i] = type(value) == "string" and value or ("(error object is a " .. typeof(value) .. " value)")
        chains[i] = internal.dry_settle() or false
      end
    end
  end
  return errors, nils, chains
end

-- Clears the resolution stack an error left behind (the dry run's calls
-- are top-level: nothing else is resolving) and returns the dependency
-- chain it held from the first step that repeats (a class and property seen
-- before: steps that create new objects repeat no object), or nil.
function internal.dry_settle()
  local labels, first_at, chain = {}, {}, nil
  for i = 1, depth do
    local o = stack_object[i]
    if o then
      local m = class_of(o)
      local l = (m and m.name or typeof(o)) .. "." .. tostring(stack_property[i])
      if first_at[l] and not chain then
        chain = {}
        for k = first_at[l], #labels do chain[#chain + 1] = labels[k] end
        chain[#chain + 1] = l
      end
      labels[#labels + 1] = l
      first_at[l] = first_at[l] or #labels
    end
  end
  if depth > 0 then pop(1) end
  return chain and tconcat(chain, " -> ") or nil
end

-- The field of `fname`'s definition table closest to `key`, or nil.
function internal.closest_field(fname, key)
  local schema = schemas[fname]
  return schema and closest_key(key, schema) or nil
end

internal.closest_key = closest_key
internal.typeof = typeof

---------------------------------------------------------------------------
-- The API for tools: `bmlua types` writes the editor annotations from it
---------------------------------------------------------------------------

-- Shapes of what bm hands out (not checked: bm makes them; required: always there).
local REGISTRATION = {
  id = field(required(ANY), "the registration's number in the registry", "integer"),
  kind = field(required(STRING), "what was registered: \"initializer\", \"hook\", \"resolver\", ..."),
  unregister = field(required(FUNCTION), "removes the registration; true if it was still registered",
    "fun(self: bm.Registration): boolean"),
}
local ENTRY = {
  kind = field(required(STRING), "\"initializer\", \"singleton\", \"hook\", \"preference\", \"partial\", \"resolver\", "
    .. "\"preference_keys\", or a Swift registration's kind"),
  type = field(STRING, "the type it serves"),
  protocols = field(TABLE, "the protocol set it serves", "string[]"),
  container = field(STRING, "the container it is restricted to (nil: any)"),
  scope = field(STRING, "an initializer's scope", "\"instance\"|\"singleton\""),
  property = field(STRING, "the property a hook or preference override is for"),
  source = field(required(STRING), "where it was registered, as file:line"),
}
local SPELL = {
  kind = field(required(STRING),
    "the spell: \"lazy\", \"injectable\", \"partial\", \"final\", \"preference\" or a custom name"),
  type = field(STRING, "the property's type name"),
  protocols = field(TABLE, "the property's protocol set", "string[]"),
  optional = field(BOOLEAN, "nil instead of an error when nothing serves the property"),
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
  { "bm.ResolveOptions", "The options of bm.resolve.", RESOLVE },
  { "bm.SpellDef", "The definition table of bm.define_spell.", DEFINE_SPELL },
  { "bm.TypedSpellDef", "The table form of bm.spell.lazy and bm.spell.injectable.", TYPED },
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
  { "bm.resolve", "Runs the most specific matching initializer and returns its value.",
    { { "type", "string|nil" }, { "options", "bm.ResolveOptions", true } }, "any" },
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
    .. "it raises (or gives nil when optional).", { { "arg", "string|bm.TypedSpellDef" } }, "bm.Spell" },
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
function internal.api()
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

return bm, internal
