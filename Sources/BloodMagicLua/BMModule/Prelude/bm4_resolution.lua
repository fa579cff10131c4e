-- The bm prelude, part 4 of 6: the resolution of spelled properties, with cycle detection.
-- One chunk with the other parts (bm1_definitions.lua says how): their locals are its locals.

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

-- The registry's hooks after an injection, one step each (core.hook_steps):
-- this script's Lua hooks are called here, from Lua, so that they may yield
-- (a coroutine scheduler works across them); the rest run through Swift.
-- Every hook runs; the first error is raised after the last, as
-- core.run_hooks does.
local function run_hooks(name, property, object, value, hooks)
  local steps = core.hook_steps(name, property, hooks)
  local failure
  for i = 1, #steps do
    local step = steps[i]
    local ok, err
    if type(step) == "function" then
      ok, err = pcall(step, object, value)
    else
      ok, err = pcall(core.run_hooks, name, property, object, value, step)
    end
    if not ok and failure == nil then failure = err end
  end
  if failure ~= nil then error(failure, 0) end
end

-- What runs once a value is stored in an injected property: the registry's
-- hooks, then the class's method named `injected` (`<property>Injected`) and
-- its `propertyInjected`. `hooks` is the registry's hooks of the generation
-- whose lookup made the value (a box from core.lookup, core.resolve_property
-- or core.partial), `true` for those in force now (a value nothing in the
-- registry made), or nil/false for none. Returns whether there was nothing
-- at all to run (see entry.plain).
local function after_inject(object, property, meta, value, hooks, injected)
  if hooks then run_hooks(meta.name, property, object, value, hooks) end
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

-- Whether the prelude asks the resolvers itself (ask_resolvers): in a
-- coroutine that can yield here, so that they may wait, and outside any
-- coroutine, so that a resolver's yield there reads as an initializer's
-- (Lua's "attempt to yield from outside a coroutine"); not under a C or
-- Swift call in a coroutine (Swift asks them, and names the resolver), and
-- not while Swift resolves on this thread (its tracker would miss the steps
-- Lua takes itself, as for a cached initializer).
local isyieldable = type(coroutine) == "table" and coroutine.isyieldable or nil
local function asks_resolvers()
  if isyieldable == nil then return false end
  if not isyieldable() then
    local _, main = corunning()
    if not main then return false end
  end
  local _, busy = generation()
  return not busy
end

-- The resolvers of a plan (core.resolve_property with `plan` true: those of
-- one lookup, newest first), asked here so that a script's resolver may
-- yield: this script's are called from Lua, the others through Swift
-- (core.ask_resolver). The first that answers wins; Swift then hands back
-- the hooks of the same lookup (core.resolver_chose), so a read suspended
-- across a registry change or a reload keeps to the generation it began in.
-- Returns what core.resolve_property does: true, value, hooks, or false and
-- the no-initializer message when every resolver skips. O(resolvers).
local function ask_resolvers(object, steps, plan)
  for i = 1, #steps do
    local step = steps[i]
    local answered, answer
    if step then
      answer = step(steps.container, steps.property, steps.type, steps.protocols, steps.spell, object, true)
      answered = answer ~= nil
    else
      answered, answer = core.ask_resolver(plan, i, object)
    end
    if answered then return true, answer, core.resolver_chose(plan, i) end
  end
  return false, core.resolver_chose(plan, nil)
end

-- Each producer returns the value and the hooks that follow it (see after_inject).
local function lazy_value(object, property, meta, spell)
  local found, value, hooks = core.resolve_property(spell.type, spell.protocols, meta.name, object, property,
    spell.kind, spell.optional == true, spell.name, spell.name == nil and asks_resolvers())
  if found == "plan" then found, value, hooks = ask_resolvers(object, value, hooks) end
  if found then return value, hooks end
  local served, default = fallback(spell)
  if served then return default, true end
  -- Swift's typed error (a box) goes back to it as its text is raised.
  if hooks ~= nil then core.note_unserved(hooks) end
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

