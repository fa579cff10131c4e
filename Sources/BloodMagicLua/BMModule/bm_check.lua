-- The Lua half of `bmlua check`, loaded only into the checker's inspection
-- host as the chunk `=[bm check]`, after the prelude. Its argument is the
-- prelude's internal table; it returns a table of functions the checker
-- calls:
--
-- - `install(types, globals)`: stand-ins for the app's exposed types and
--   globals, from the manifest, so that scripts and initializers run as they
--   would in the app. A stand-in checks what the real type checks (members,
--   argument counts and names, read-only properties) and gives placeholder
--   values of the declared Swift types.
-- - `sender(container)`: a sender for a Swift container: a stand-in of its
--   exposed type, or an object without members as the bridge makes.
-- - `result(value)`: the kind of a value an initializer returned, and the
--   stand-in type it is of.
-- - `global_names()`: the globals' names, for "closest" suggestions.
-- - `dry_reload()`: runs the `bm.on_reload` callbacks as after a reload.
local internal = ...
local type, next, ipairs, select, tostring, error = type, next, ipairs, select, tostring, error
local setmetatable, rawget, rawset, rawlen, rawequal = setmetatable, rawget, rawset, rawlen, rawequal
local tconcat, tunpack, sformat, smatch, mtype = table.concat, table.unpack, string.format, string.match, math.type
local sbyte, ssub, mfloor, mhuge = string.byte, string.sub, math.floor, math.huge
local G = _G
local closest_key, typeof = internal.closest_key, internal.typeof
local where, keep_frame = internal.where, internal.keep_frame

-- Raises `message` at the nearest script frame (this chunk's frames and C
-- frames skipped), as the bridge's C functions do.
local function fail(message)
  error(where() .. message, 0)
end

local support = {}
local types = {}                                       -- name -> manifest type, with lookups
local standin_of = setmetatable({}, { __mode = "k" })  -- stand-in object -> type name

local function near(name, candidates)
  local c = closest_key(name, candidates)
  return c and (" (closest: " .. c .. ")") or ""
end

local new_object

-- A value of the Swift type `swift_type`, as a stand-in gives it.
local function placeholder(swift_type)
  if swift_type == nil or swift_type == "Void" then return nil end
  if types[swift_type] then return new_object(swift_type) end
  if swift_type == "String" or swift_type == "Substring" or swift_type == "Character" then return "" end
  if swift_type == "Bool" then return false end
  if swift_type == "Double" or swift_type == "Float" or swift_type == "CGFloat" then return 0.0 end
  if smatch(swift_type, "^U?Int%d*$") then return 0 end
  if smatch(swift_type, "^Array<") or smatch(swift_type, "^Dictionary<") or smatch(swift_type, "^Set<")
      or smatch(swift_type, "^%[") or smatch(swift_type, "^ContiguousArray<") then
    return {}
  end
  return nil
end

-- The inside of `Name<...>` in a manifest's type spelling, split at its
-- top-level commas (`Dictionary<String, Array<Int>>`: "String", "Array<Int>").
local function generic_arguments(swift_type, name)
  local inner = smatch(swift_type, "^" .. name .. "<(.*)>$")
  if inner == nil then return nil end
  local parts, depth, start = {}, 0, 1
  for i = 1, #inner do
    local c = sbyte(inner, i)
    if c == 60 then depth = depth + 1          -- <
    elseif c == 62 then depth = depth - 1      -- >
    elseif c == 44 and depth == 0 then         -- ,
      parts[#parts + 1] = smatch(ssub(inner, start, i - 1), "^%s*(.-)%s*$")
      start = i + 1
    end
  end
  parts[#parts + 1] = smatch(ssub(inner, start), "^%s*(.-)%s*$")
  return parts
end

-- Why `value` is not a value of the Swift type `swift_type` (a manifest's
-- spelling), in the bridge's words (`expected number, got string`), or nil
-- when it is one or the check cannot tell (a type the bridge reads in ways
-- the manifest does not say: Date, a Decodable struct, ...). `depth` bounds
-- the nesting looked into, and `budget` (a table { n }) the elements: a
-- script's big table costs at most that much.
-- A value's type as the bridge names it: a stand-in by its type's name.
local function shown(value)
  return standin_of[value] or typeof(value)
end

local check_value
check_value = function(swift_type, value, depth, budget)
  if swift_type == nil or depth > 8 then return nil end
  local optional = generic_arguments(swift_type, "Optional")
  if optional then
    if value == nil then return nil end
    return check_value(optional[1], value, depth + 1, budget)
  end
  local t = type(value)
  if swift_type == "Bool" then
    return t ~= "boolean" and ("expected boolean, got " .. shown(value)) or nil
  end
  if swift_type == "String" then
    return t ~= "string" and ("expected string, got " .. shown(value)) or nil
  end
  if swift_type == "Double" or swift_type == "Float" or swift_type == "CGFloat" then
    return t ~= "number" and ("expected number, got " .. shown(value)) or nil
  end
  if smatch(swift_type, "^U?Int%d*$") then
    if t ~= "number" then return "expected integer, got " .. shown(value) end
    if mtype(value) == "float" and (value ~= value or value ~= mfloor(value) or value == mhuge or value == -mhuge) then
      return "expected integer, got number " .. tostring(value)
    end
    return nil
  end
  if types[swift_type] then
    if standin_of[value] == swift_type then return nil end
    return "expected " .. swift_type .. ", got " .. shown(value)
  end
  local element = generic_arguments(swift_type, "Array")
  if element then
    if t ~= "table" or standin_of[value] ~= nil then return "expected table, got " .. shown(value) end
    for i = 1, rawlen(value) do
      budget.n = budget.n - 1
      if budget.n < 0 then return nil end
      local problem = check_value(element[1], rawget(value, i), depth + 1, budget)
      if problem then return "[" .. i .. "]: " .. problem end
    end
    return nil
  end
  local entry = generic_arguments(swift_type, "Dictionary")
  if entry and entry[1] == "String" then
    if t ~= "table" or standin_of[value] ~= nil then return "expected table, got " .. shown(value) end
    for key, item in next, value do
      budget.n = budget.n - 1
      if budget.n < 0 then return nil end
      if type(key) ~= "string" then return "expected string keys, got a " .. shown(key) .. " key" end
      local problem = check_value(entry[2], item, depth + 1, budget)
      if problem then return "[\"" .. key .. "\"]: " .. problem end
    end
    return nil
  end
  return nil
end

-- Elements a type check looks at in one value, at most.
local CHECKED_ELEMENTS = 4096

local function value_problem(swift_type, value)
  return check_value(swift_type, value, 0, { n = CHECKED_ELEMENTS })
end

-- `'name'` for an argument's message, as the bridge names it (an argument
-- the app did not name is listed as argN in the manifest, unnamed here).
local function argument_label(a, i)
  if a.name == nil or a.name == ("arg" .. i) then return "" end
  return " '" .. a.name .. "'"
end

-- Raises what the bridge raises for a call with the wrong arguments.
local function check_arguments(fname, arguments, allows_named, ...)
  if arguments == nil then return end
  local n = select("#", ...)
  local first = ...
  if allows_named and n == 1 and type(first) == "table" and standin_of[first] == nil and rawlen(first) == 0 then
    local names, listed = {}, {}
    for i = 1, #arguments do names[arguments[i].name] = true; listed[i] = arguments[i].name end
    for key in next, first do
      if type(key) ~= "string" or not names[key] then
        fail(sformat("%s: unknown argument %s (expected %s)", fname,
          type(key) == "string" and ("'" .. key .. "'") or ("of type " .. typeof(key)), tconcat(listed, ", "))
          .. (type(key) == "string" and near(key, names) or ""))
      end
    end
    for i = 1, #arguments do
      local a = arguments[i]
      local value = rawget(first, a.name)
      if not a.optional and value == nil then
        fail(sformat("%s: bad argument '%s' (missing)", fname, a.name))
      end
      local problem = value_problem(a.type, value)
      if problem then fail(sformat("%s: bad argument '%s' (%s)", fname, a.name, problem)) end
    end
    return
  end
  local minimum = 0
  for i = 1, #arguments do if not arguments[i].optional then minimum = i end end
  if n < minimum or n > #arguments then
    local expected = minimum == #arguments and (#arguments .. " argument" .. (#arguments == 1 and "" or "s"))
      or (minimum .. " to " .. #arguments .. " arguments")
    fail(sformat("%s: expected %s, got %d", fname, expected, n))
  end
  for i = 1, #arguments do
    local a = arguments[i]
    local problem = value_problem(a.type, (select(i, ...)))
    if problem then fail(sformat("%s: bad argument #%d%s (%s)", fname, i, argument_label(a, i), problem)) end
  end
end

-- What the bridge says for a member a type does not have, and what came closest.
local function no_property(name, key, members)
  return sformat("%s has no property %s", name, tostring(key)) .. (type(key) == "string" and near(key, members) or "")
end

local object_metatables = {}

new_object = function(name)
  local object = setmetatable({}, object_metatables[name])
  standin_of[object] = name
  return object
end

local function install_type(t)
  local name = t.name
  local properties, methods = {}, {}
  for _, p in ipairs(t.properties or {}) do properties[p.name] = p end
  for _, m in ipairs(t.methods or {}) do methods[m.name] = m end
  t.property_table, t.method_table = properties, methods
  types[name] = t
  local members = {}
  for k in next, properties do members[k] = true end
  for k in next, methods do members[k] = true end
  local method_functions = {}
  for method_name, m in next, methods do
    local fname = name .. "." .. method_name
    method_functions[method_name] = keep_frame(function(self, ...)
      if standin_of[self] ~= name then
        fail(sformat("%s: expected a %s object as self, got %s (call it as obj:%s(...))",
          fname, name, typeof(self), method_name))
      end
      check_arguments(fname, m.arguments, false, ...)
      return placeholder(m.returns)
    end)
  end
  local has_properties = next(properties) ~= nil
  object_metatables[name] = {
    __name = name,
    __index = function(object, key)
      local p = properties[key]
      if p then
        local stored = rawget(object, "\0" .. key)
        if stored ~= nil then return stored end
        return placeholder(p.type)
      end
      local f = method_functions[key]
      if f then return f end
      if has_properties then
        error(no_property(name, key, members), 2)
      end
      return nil
    end,
    __newindex = function(object, key, value)
      local p = properties[key]
      if p == nil then
        error(no_property(name, key, members), 2)
      end
      if not p.writable then
        error(sformat("cannot assign to read-only property '%s' of %s", key, name), 2)
      end
      local problem = value_problem(p.type, value)
      if problem then error(sformat("%s.%s: bad value (%s)", name, key, problem), 2) end
      rawset(object, "\0" .. key, value)
    end,
    __tostring = function() return sformat("%s: (stand-in)", name) end,
    __metatable = name,
  }
  local class = {}
  for method_name, f in next, method_functions do class[method_name] = f end
  local constructor = t.constructor
  if constructor then
    local fname = name .. ".new"
    class.new = keep_frame(function(...)
      local n = select("#", ...)
      local args = { n = n, ... }
      local first = 1
      if n >= 1 and rawequal(args[1], class) then first = 2 end   -- Name:new(...)
      if constructor.decodes then
        local count = n - first + 1
        if count ~= 1 or type(args[first]) ~= "table" then
          fail(sformat("%s: expected 1 argument (a table), got %d", fname, count))
        end
      else
        check_arguments(fname, constructor.arguments, true, tunpack(args, first, n))
      end
      return new_object(name)
    end)
  end
  rawset(G, name, class)
end

-- A value of the shape `shape` (a manifest global).
local function shaped(shape, depth)
  local kind = shape.kind
  if kind == "string" then return "" end
  if kind == "integer" then return 0 end
  if kind == "number" then return 0.0 end
  if kind == "boolean" then return false end
  if kind == "function" then return function() end end
  if kind == "userdata" and shape.type and types[shape.type] then return new_object(shape.type) end
  if kind == "table" then
    local t = {}
    if depth < 8 then
      for key, field in next, shape.fields or {} do t[key] = shaped(field, depth + 1) end
      for i, item in ipairs(shape.items or {}) do t[i] = shaped(item, depth + 1) end
    end
    return t
  end
  return nil
end

function support.install(type_list, global_list)
  for _, t in ipairs(type_list or {}) do install_type(t) end
  for _, g in ipairs(global_list or {}) do rawset(G, g.name, shaped(g.value, 0)) end
end

local bare_metatables = {}

-- A sender for the Swift container `name`.
function support.sender(name)
  if types[name] then return new_object(name) end
  local mt = bare_metatables[name]
  if mt == nil then
    mt = { __name = name, __index = {}, __metatable = name,
           __newindex = function(_, key) error(sformat("%s has no property %s", name, tostring(key)), 2) end,
           __tostring = function() return name .. ": (stand-in)" end }
    bare_metatables[name] = mt
  end
  local object = setmetatable({}, mt)
  standin_of[object] = name
  return object
end

-- What an initializer returned: its kind (`integer` for an integer) and,
-- for a stand-in, the exposed type it is of.
function support.result(value)
  local kind = type(value)
  if kind == "number" and mtype(value) == "integer" then kind = "integer" end
  return kind, standin_of[value]
end

-- Calls every bm.on_reload callback as the host would after a reload that
-- worked and after one that failed (with example changes); returns the
-- message of each call that failed.
-- The callbacks run for what they raise. What they print is about made-up
-- outcomes (the failure's example error), which the check must not show
-- as if they were real: `print` prints nothing while they run.
function support.dry_reload()
  local print = rawget(G, "print")
  rawset(G, "print", function() end)
  local ok, result = pcall(function()
    local errors = internal.run_reload_callbacks({ ok = true, files = {}, added = {}, removed = {}, replaced = {},
                                                   errors = {} })
    local failed = internal.run_reload_callbacks({ ok = false, files = { "(a changed file).lua" }, added = {},
                                                   removed = {}, replaced = {},
                                                   errors = { "(a changed file).lua:1: (an example error)" } })
    for i = 1, #failed do errors[#errors + 1] = failed[i] end
    return errors
  end)
  rawset(G, "print", print)
  if not ok then error(result, 0) end
  return result
end

-- The names of the global variables, for "closest" suggestions.
function support.global_names()
  local names = {}
  for key in next, G do
    if type(key) == "string" then names[#names + 1] = key end
  end
  return names
end

return support
