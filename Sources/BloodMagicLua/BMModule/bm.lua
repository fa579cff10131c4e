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
local where = core.where
local generation, lookup = core.generation, core.lookup
local suite_problem = core.suite_problem

local bm = { spell = {} }
local internal = {}

local function fail(message)
  error(where() .. message, 0)
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

local STRING = { check = is_string, what = "a string" }
local FUNCTION = { check = is_function, what = "a function" }
local BOOLEAN = { check = is_boolean, what = "a boolean" }
local TABLE = { check = is_table, what = "a table" }
local ANY = { check = is_any, what = "any value" }
local CONTAINER = { check = function(v) return type(v) == "string" or type(v) == "table" end,
                    what = "a class name or a class" }

local function required(rule) return { check = rule.check, what = rule.what, required = true } end

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
  if type(def) ~= "table" then
    fail(fname .. ": expected a definition table, got " .. typeof(def))
  end
  for key in next, def do
    if type(key) ~= "string" or rawget(schema, key) == nil then
      fail(fname .. ": unknown field " .. show_key(key))
    end
  end
  local fields = {}
  for key, rule in next, schema do
    local value = rawget(def, key)
    if value == nil then
      if rule.required then fail(fname .. ": missing required field '" .. key .. "'") end
    elseif not rule.check(value) then
      fail(fname .. ": field '" .. key .. "' must be " .. rule.what .. ", got " .. typeof(value))
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
    fail(fname .. ": field 'protocols' must be an array of protocol names, got " .. typeof(list))
  end
  local count = rawlen(list)
  for key in next, list do
    if type(key) ~= "number" or key < 1 or key > count or key % 1 ~= 0 then
      fail(fname .. ": field 'protocols' must be an array of protocol names (found key " .. show_key(key) .. ")")
    end
  end
  local seen, out = {}, {}
  for i = 1, count do
    local name = rawget(list, i)
    if type(name) ~= "string" or name == "" then
      fail(fname .. ": protocols[" .. i .. "] must be a protocol name, got " .. typeof(name))
    end
    if not seen[name] then seen[name] = true; out[#out + 1] = name end
  end
  if #out == 0 then fail(fname .. ": field 'protocols' is empty") end
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
    if value == "" then fail(fname .. ": field 'container' is empty") end
    return value
  end
  local meta = info[value]
  if meta then return meta.name end
  fail(fname .. ": field 'container' must be a class name or a class, got " .. typeof(value))
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
  type = STRING, protocols = TABLE, container = CONTAINER, init = required(FUNCTION),
  scope = STRING,
}

local function register_initializer(fname, definition, scope)
  local def = check(fname, definition, INITIALIZER)
  local protocols = protocol_list(fname, def.protocols)
  if def.type == nil and protocols == nil then
    fail(fname .. ": missing required field 'type' (or 'protocols')")
  end
  scope = scope or def.scope or "instance"
  if scope ~= "instance" and scope ~= "singleton" then
    fail(fname .. ": field 'scope' must be \"instance\" or \"singleton\", got \"" .. tostring(scope) .. "\"")
  end
  local container = container_name(fname, def.container)
  local token, id = core.register_initializer(def.type, protocols, container, scope, def.init)
  return registration(token, id, "initializer")
end

function bm.initializer(def)
  return register_initializer("bm.initializer", def, nil)
end

function bm.singleton(def)
  if type(def) == "table" and rawget(def, "scope") ~= nil then
    fail("bm.singleton: unknown field 'scope' (a singleton's scope is always \"singleton\")")
  end
  return register_initializer("bm.singleton", def, "singleton")
end

local HOOK = { container = CONTAINER, property = required(STRING), fn = required(FUNCTION) }
function bm.hook(definition)
  local def = check("bm.hook", definition, HOOK)
  local token, id = core.register_hook(container_name("bm.hook", def.container), def.property, def.fn)
  return registration(token, id, "hook")
end

local PREFERENCE = { container = CONTAINER, property = required(STRING), key = STRING, default = ANY, suite = STRING }
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

local PARTIAL = { type = required(STRING), init = required(FUNCTION) }
function bm.partial(definition)
  local def = check("bm.partial", definition, PARTIAL)
  local token, id = core.register_partial(def.type, def.init)
  return registration(token, id, "partial")
end

local RESOLVE = { container = ANY, protocols = TABLE }
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

local TYPED = { type = STRING, protocols = TABLE, optional = BOOLEAN }

-- lazy("T"), lazy { type = "T", protocols = {...}, optional = true }
local function typed_spell(kind)
  local fname = "bm.spell." .. kind
  return function(arg)
    local def
    if type(arg) == "string" then
      def = { type = arg }
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

local spell_table = bm.spell

function spell_table.partial(arg)
  if type(arg) == "string" then return make_spell("partial", { type = arg }) end
  local fields = check("bm.spell.partial", arg, { type = required(STRING) })
  return make_spell("partial", { type = fields.type })
end

function spell_table.final(arg)
  if arg == nil then return make_spell("final", {}) end
  local fields = check("bm.spell.final", arg, { optional = BOOLEAN })
  return make_spell("final", { optional = fields.optional })
end

function spell_table.preference(arg)
  if arg == nil then return make_spell("preference", {}) end
  if type(arg) == "string" then return make_spell("preference", { key = arg }) end
  local fields = check("bm.spell.preference", arg, { key = STRING, default = ANY, suite = STRING })
  local suite = check_suite("bm.spell.preference", fields.suite)
  return make_spell("preference", { key = fields.key, default = fields.default, suite = suite })
end

local builtin_spells = { lazy = true, injectable = true, partial = true, final = true, preference = true }
local custom_spells = {}

local DEFINE_SPELL = { name = required(STRING), get = FUNCTION, set = FUNCTION }
function bm.define_spell(definition)
  local def = check("bm.define_spell", definition, DEFINE_SPELL)
  local name = def.name
  if not smatch(name, "^[%a_][%w_]*$") then
    fail("bm.define_spell: field 'name' must be an identifier, got \"" .. name .. "\"")
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
  return type(message) == "string" and (message:find("stack overflow", 1, true) ~= nil
    or message:find("error in error handling", 1, true) ~= nil)
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
  local ok, value = pcall(produce, object, property, meta, spell)
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
  return value
end

-- What runs once a value is stored in an injected property: the registry's
-- hooks (`hooks`: whether any may apply), then the class's method named
-- `injected` (`<property>Injected`) and its `propertyInjected`. Returns
-- whether there was nothing at all to run (see entry.plain).
local function after_inject(object, property, meta, value, hooks, injected)
  if hooks then core.run_hooks(meta.name, property, object, value) end
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

local function lazy_value(object, property, meta, spell)
  local found, value = core.resolve_property(spell.type, spell.protocols, meta.name, object, property, spell.kind,
    spell.optional == true)
  if found then return value end
  local served, default = fallback(spell)
  if served then return default end
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
  if served then return value end
  return lazy_value(object, property, meta, spell)
end

-- The resolution cache: meta.cache[property] = { gen =, init = | value = |
-- none = true, hooks =, injected = } says what the registry serves that
-- property of that class with, for as long as the registry's generation is
-- `gen` (core.generation reads it). `init` is a Lua initializer, called from
-- the class's __index; `value` a singleton already made. An entry with none
-- of them sends the read to Swift. `hooks`: whether registry hooks may run.
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
        value = with_cycle_check(object, property, meta, default_value, spell)
        if value ~= nil then
          rawset(object, property, value)
          after_inject(object, property, meta, value, true, property .. "Injected")
        end
        return value
      end
    end
  end
  value = with_cycle_check(object, property, meta, produce[spell.kind], spell)
  if value ~= nil then
    rawset(object, property, value)
    after_inject(object, property, meta, value, true, property .. "Injected")
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

-- Reads every lazy, injectable and partial property of a fresh instance of
-- each class, in protected mode: { { class =, property =, message = } }.
function internal.dry_run()
  local failures = {}
  for _, name in ipairs(sorted_keys(classes)) do
    local class = classes[name]
    local meta = info[class]
    local ok, object = pcall(class.new)
    if not ok then
      failures[#failures + 1] = { class = name, property = "new", message = tostring(object), source = meta.source }
    else
      for _, property in ipairs(sorted_keys(meta.spells)) do
        local injected = getters[meta.spells[property].kind] == get_injected
        local ok2, err = true, nil
        if injected then ok2, err = pcall(function() return object[property] end) end
        if not ok2 then
          failures[#failures + 1] = { class = name, property = property, message = tostring(err), source = meta.source }
        end
      end
    end
  end
  return failures
end

return bm, internal
