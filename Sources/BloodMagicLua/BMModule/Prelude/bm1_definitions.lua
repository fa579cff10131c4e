-- The Lua half of the `bm` module: definition-table checks, `bm.class`, the
-- spell descriptors and the per-access logic of spelled properties. It runs
-- once per state as the chunk `=[bm]` with the Swift core functions as its
-- argument, and returns the module table and an internal table.
--
-- The chunk is written in six files, this one (part 1: shared locals,
-- definition-table checks) and bm2_registry.lua to bm6_api.lua, joined in
-- the order of their names into one text (BMPreludeChunk.swift), compiled
-- once per process: a local of an earlier part is in scope in the later
-- ones. `./scripts/lint` checks the joined text and names each file's lines.
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
local keep_frame = core.keep_frame

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

-- The text of a caught error: a string as it is; the message of an error
-- object that carries a Swift error (a userdata whose getmetatable is
-- "Swift error": scripts cannot make userdata, so none can pass for one).
local function error_text(e)
  if type(e) == "string" then return e end
  if type(e) == "userdata" and getmetatable(e) == "Swift error" then return tostring(e) end
  return "(error object is a " .. typeof(e) .. " value)"
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
-- internal.api_scope and bm_api.lua), so they cannot drift from what the checks accept.
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

-- The length of the array in field `name` (its keys 1..n only, else it
-- fails naming the first other key found; `what`: what the array holds).
-- O(entries).
local function array_length(fname, name, t, what)
  local count = rawlen(t)
  for key in next, t do
    if type(key) ~= "number" or key < 1 or key > count or key % 1 ~= 0 then
      fail_field(name, fname .. ": field '" .. name .. "' must be an array of " .. what .. " (found key "
        .. show_key(key) .. ")")
    end
  end
  return count
end

-- A protocol list: an array of names, returned sorted and without duplicates
-- (read raw: 1..rawlen, and every key checked).
local function protocol_list(fname, list)
  if list == nil then return nil end
  if type(list) ~= "table" then
    fail_field("protocols", fname .. ": field 'protocols' must be an array of protocol names, got " .. typeof(list))
  end
  local seen, out = {}, {}
  for i = 1, array_length(fname, "protocols", list, "protocol names") do
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

