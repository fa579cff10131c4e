-- The bm prelude, part 5 of 6: bm.class, the reports and the dry run of tools.
-- One chunk with the other parts (bm1_definitions.lua says how): their locals are its locals.

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

-- Every spelled property of the classes `names` (an array; nil: every
-- class, sorted), for tools:
-- { { class =, property =, kind =, type =, protocols =, optional =, name =, source = } }
-- The checker asks for a batch of classes per call, so the work of one call
-- (which runs within the instruction budget) does not grow with the number
-- of classes.
function internal.spell_report(names)
  local rows = {}
  for _, name in ipairs(names or sorted_keys(classes)) do
    local class = classes[name]
    local meta = class and info[class]
    for _, property in ipairs(meta and sorted_keys(meta.spells) or {}) do
      local spell = meta.spells[property]
      rows[#rows + 1] = { class = name, property = property, kind = spell.kind, type = spell.type,
                          protocols = spell.protocols, optional = spell.optional == true, name = spell.name,
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
        errors[i] = error_text(value)
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
internal.where = where
internal.keep_frame = keep_frame

-- What scripts call goes through a C function (core.keep_frame): a tail
-- call such as `return bm.initializer { ... }` in a helper then keeps the
-- helper's frame, so an error names the helper's line, not its caller's.
-- (Spells and bm.class keep their callers' lines as their sources: a spell
-- made by a helper points at the property that uses it.)
for _, name in ipairs { "initializer", "singleton", "hook", "preference", "partial", "resolver", "preference_keys",
                        "on_reload", "define_spell" } do
  bm[name] = keep_frame(bm[name])
end
