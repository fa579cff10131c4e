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
local G = _G
local closest_key, typeof = internal.closest_key, internal.typeof

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
        error(sformat("%s: unknown argument %s (expected %s)", fname,
          type(key) == "string" and ("'" .. key .. "'") or ("of type " .. typeof(key)), tconcat(listed, ", "))
          .. (type(key) == "string" and near(key, names) or ""), 3)
      end
    end
    for i = 1, #arguments do
      local a = arguments[i]
      if not a.optional and rawget(first, a.name) == nil then
        error(sformat("%s: bad argument '%s' (missing)", fname, a.name), 3)
      end
    end
    return
  end
  local minimum = 0
  for i = 1, #arguments do if not arguments[i].optional then minimum = i end end
  if n < minimum or n > #arguments then
    local expected = minimum == #arguments and (#arguments .. " argument" .. (#arguments == 1 and "" or "s"))
      or (minimum .. " to " .. #arguments .. " arguments")
    error(sformat("%s: expected %s, got %d", fname, expected, n), 3)
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
    method_functions[method_name] = function(self, ...)
      if standin_of[self] ~= name then
        error(sformat("%s: expected a %s object as self, got %s (call it as obj:%s(...))",
          fname, name, typeof(self), method_name), 2)
      end
      check_arguments(fname, m.arguments, false, ...)
      return placeholder(m.returns)
    end
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
    class.new = function(...)
      local n = select("#", ...)
      local args = { n = n, ... }
      local first = 1
      if n >= 1 and rawequal(args[1], class) then first = 2 end   -- Name:new(...)
      if constructor.decodes then
        local count = n - first + 1
        if count ~= 1 or type(args[first]) ~= "table" then
          error(sformat("%s: expected 1 argument (a table), got %d", fname, count), 2)
        end
      else
        check_arguments(fname, constructor.arguments, true, tunpack(args, first, n))
      end
      return new_object(name)
    end
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
