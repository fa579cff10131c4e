-- The bm prelude, part 3 of 5: the spell descriptors and the resolution of spelled properties.
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

---------------------------------------------------------------------------
-- Resolution of spelled properties (with cycle detection)
---------------------------------------------------------------------------

-- The resolutions in progress, as parallel arrays (no table per step): the
-- object, the property and the thread running them (a coroutine may be
-- suspended inside a step, and closed there, or dropped: the threads are
-- held weakly, and a frame whose coroutine was collected is dead). `depth` is the top. A step run without pcall that
-- raised leaves its frame behind when the error is caught: a step that
-- returns clears its frame and anything above it, and before a cycle is
-- reported, or once the stack has grown by PRUNE_EVERY, `prune` asks which
-- frames still run (core.live_frames) and drops the rest. Cleared slots hold
-- false, not nil (storing into a nil slot takes Lua's slow path); holes left
-- by `prune` are false too, and every slot above `depth` is false or nil.
local stack_object, stack_property, stack_thread = {}, {}, setmetatable({}, { __mode = "v" })
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

-- The labels of the frames first..depth (stale ones included: when an
-- overflow unwinds to a pcall, the frames above it are exactly the steps
-- that ran).
local function frame_labels(first)
  local chain = {}
  for k = first, depth do
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

-- Whether `thread` is a coroutine suspended (yielded): a resolution on it
-- waits, and is no step of the chain running now. (A thread in "normal"
-- status resumed the running one: its resolution is part of the chain.)
local costatus = type(coroutine) == "table" and coroutine.status or nil
local corunning = type(coroutine) == "table" and coroutine.running or nil
local function suspended(thread)
  return costatus ~= nil and type(thread) == "thread" and costatus(thread) == "suspended"
end

-- Raises the cycle error when `property` of `object` is being resolved
-- already on the running chain (called only when depth > 0). A resolution
-- of it suspended in another coroutine is no cycle: that read fails with
-- its own message (the value is not made yet; a suspended coroutine that is
-- closed leaves nothing behind, see prune).
local function check_cycle(object, property, meta)
  for i = 1, depth do
    if rawequal(stack_object[i], object) and stack_property[i] == property then
      prune()
      for j = 1, depth do
        if rawequal(stack_object[j], object) and stack_property[j] == property then
          if suspended(stack_thread[j]) then
            fail(label(meta, property) .. " is being resolved by another coroutine, suspended inside its "
              .. "initializer: read it again once that coroutine has finished (or has been closed)")
          end
          local chain = frame_labels(j)
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
      local chain = frame_labels(1)
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
  -- A coroutine's step records its thread: it may be suspended there (a lazy
  -- default's class constructor may yield), and if the coroutine is closed
  -- meanwhile it never pops the frame. The main thread's steps (which pcall
  -- always pops) stay without one: always live, never walked.
  local thread = false
  if corunning ~= nil then
    local co, main = corunning()
    if not main then thread = co end
  end
  stack_object[d], stack_property[d], stack_thread[d] = object, property, thread
  local ok, value, hooks = pcall(produce, object, property, meta, spell)
  if not ok and is_overflow(value) and depth > 1 then
    -- Lua ran out of stack above this step: the frames from here up are
    -- the chain that did it. A repeating chain is a cycle; otherwise the
    -- overflow keeps its message, with the chain.
    local chain = frame_labels(1)
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
    spell.kind, spell.optional == true, spell.name)
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
  if spell.name ~= nil then
    -- A named property: the entry sends every read to Swift, which
    -- resolves it by its name (core.resolve_property).
    local entry = { gen = (generation()) }
    meta.cache[property] = entry
    return entry
  end
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

-- The value `make` makes for the property (under the cycle check), stored
-- raw in the object and its hooks run, unless it is nil. The reads the
-- registry's cache does not serve (a tail call: no frame of its own).
local function inject_made(object, property, meta, spell, make)
  local value, hooks = with_cycle_check(object, property, meta, make, spell)
  if value ~= nil then
    rawset(object, property, value)
    after_inject(object, property, meta, value, hooks, property .. "Injected")
  end
  return value
end

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
      if entry.none then return inject_made(object, property, meta, spell, default_value) end
    end
  end
  return inject_made(object, property, meta, spell, produce[spell.kind])
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

-- A provider keeps nothing: every read resolves anew (no hooks: nothing is
-- injected), and it cannot be assigned.
local function get_provided(object, property, meta, spell)
  return (with_cycle_check(object, property, meta, lazy_value, spell))
end

local function set_provided(_object, property, _value, meta, _spell)
  fail("provider property '" .. property .. "' of " .. meta.name
    .. " makes a new value on every read and cannot be assigned")
end

local getters = { lazy = get_injected, injectable = get_injected, partial = get_injected,
                  final = get_final, preference = get_preference, provider = get_provided }
local setters = { final = set_final, preference = set_preference, provider = set_provided }

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

