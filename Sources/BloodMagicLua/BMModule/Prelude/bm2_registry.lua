-- The bm prelude, part 2 of 6: registrations, force injection and preference keys, live reload.
-- One chunk with the other parts (bm1_definitions.lua says how): their locals are its locals.

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
  scope = field(STRING, "one value per object (\"instance\", the default), one per registry (\"singleton\"), "
    .. "one while anyone holds it (\"weak\"), one per top-level resolution (\"graph\"), or one until the app "
    .. "resets a custom scope it declared (its name)",
    "\"instance\"|\"singleton\"|\"weak\"|\"graph\"|string"),
  name = field(STRING, "the registration's name: it serves only properties and resolutions that ask for this "
    .. "name (bm.spell.injectable { name = ... }, bm.resolve(T, { name = ... })), and no others"),
  arguments = field(TABLE, "names of the arguments init takes after the sender (init = function(sender, id, options)), "
    .. "each with its Lua type if you like (\"id: integer\", \"options: table?\") or an exposed Swift class "
    .. "(\"owner: User\": an object of it or of a subclass); a resolution must give as many, "
    .. "of those types (bm.resolve(T, { arguments = { ... } }))", "string[]"),
  implements = field(TABLE, "other types it serves too, each a type name or a protocol list; a singleton is one "
    .. "value for all of them", "(string|string[])[]"),
  async = field(BOOLEAN, "true: an async registration, made with `try await` in Swift (resolve, asyncValue, "
    .. "prepare): init runs in a coroutine and may call async Swift functions; it gets no sender, and a "
    .. "synchronous read fails until the value is made"),
}
-- bm.singleton's table: the same fields but `scope` and `arguments` (a singleton is made once).
local SINGLETON = {}
for key, rule in next, INITIALIZER do
  if key ~= "scope" and key ~= "arguments" then SINGLETON[key] = rule end
end

-- A definition of bm.initializer or bm.singleton read in one raw pass,
-- when every key is one of its fields and every value of that field's type
-- and `init` is there: returns true and the fields. Anything else returns
-- nothing, and the caller runs the generic `check`, whose error is then the
-- one the script sees. (Loading thousands of definitions is the common
-- case this keeps cheap: no table of checked fields, no rule calls.)
local function plain_initializer(def, singleton)
  if type(def) ~= "table" then return end
  local t, protocols, container, init, scope, name
  for key, value in next, def do
    local tv = type(value)
    if key == "type" and tv == "string" then t = value
    elseif key == "init" and tv == "function" then init = value
    elseif key == "protocols" and tv == "table" then protocols = value
    elseif key == "container" and (tv == "string" or tv == "table") then container = value
    elseif key == "scope" and tv == "string" and not singleton then scope = value
    elseif key == "name" and tv == "string" then name = value
    else return end
  end
  if init == nil then return end
  return true, t, protocols, container, init, scope, name
end

-- The `implements` field checked, as { { type, protocols }, ... } (nil for none).
local function forwarded_types(fname, implements)
  if implements == nil then return nil end
  local out = {}
  for i = 1, array_length(fname, "implements", implements, "type names or protocol lists") do
    local item = rawget(implements, i)
    if type(item) == "string" and item ~= "" then
      out[i] = { item }
    elseif type(item) == "table" then
      out[i] = { nil, protocol_list(fname, item) }
    else
      fail_field("implements", fname .. ": implements[" .. i .. "] must be a type name or a protocol list, got "
        .. typeof(item))
    end
  end
  return out
end

-- The Lua types an argument may declare ("id: integer"; "id: table?" also
-- takes nil). A capitalized name ("user: User") is an exposed Swift class:
-- an object of it or of a subclass. Swift checks each value an initializer
-- is given against it (BMModule+Arguments.swift, LuaArgumentDeclaration.swift).
local ARGUMENT_TYPES = { any = true, boolean = true, number = true, integer = true, string = true, table = true,
  ["function"] = true, userdata = true }

-- The `arguments` field checked: an array of non-empty names, each bare
-- ("id") or with its type ("id: integer"); nil for none. Each entry is
-- matched once by an anchored pattern without backtracking over its
-- length: linear in the entry's bytes.
local function argument_names(fname, names)
  if names == nil then return nil end
  for i = 1, array_length(fname, "arguments", names, "argument names") do
    local name = rawget(names, i)
    if type(name) ~= "string" or name == "" then
      fail_field("arguments", fname .. ": arguments[" .. i .. "] must be an argument name, got " .. typeof(name))
    end
    if sfind(name, ":", 1, true) then
      local declared = smatch(name, "^[%a_][%w_]*%s*:%s*([%a_][%w_]*)%??$")
      if declared == nil or not (ARGUMENT_TYPES[declared] or smatch(declared, "^%u")) then
        fail_field("arguments", fname .. ": arguments[" .. i .. "] must be \"name\" or \"name: type\" (type one of "
          .. "any, boolean, integer, number, string, table, function, userdata, or an exposed class such as User, "
          .. "with ? to take nil too), got " .. sformat("%q", name))
      end
    end
  end
  return names
end

-- A registration name (nil for none): a non-empty string.
local function registration_name(fname, name)
  if name == "" then fail_field("name", fname .. ": field 'name' must not be empty (leave it out for no name)") end
  return name
end

local function register_initializer(fname, definition, scope)
  local schema = scope == "singleton" and SINGLETON or INITIALIZER
  local plain, t, protocols, container, init, def_scope, name = plain_initializer(definition, scope == "singleton")
  local implements, arguments, async
  if plain then
    schemas[fname] = schema
  else
    local def = check(fname, definition, schema)
    t, protocols, container, init = def.type, def.protocols, def.container, def.init
    def_scope, name = def.scope, def.name
    implements = forwarded_types(fname, def.implements)
    arguments = argument_names(fname, def.arguments)
    async = def.async == true or nil
  end
  -- Each check called only for a field given (a plain definition gives
  -- type and init alone: thousands of them load without these calls).
  if name ~= nil then name = registration_name(fname, name) end
  if protocols ~= nil then protocols = protocol_list(fname, protocols) end
  if t == nil and protocols == nil then
    fail(fname .. ": missing required field 'type' (or 'protocols')")
  end
  scope = scope or def_scope or "instance"
  -- Built-in names pass; any other must be a custom scope the app declared
  -- (Swift knows which, and says so at the field's line).
  if scope ~= "instance" and scope ~= "singleton" and scope ~= "weak" and scope ~= "graph" then
    local bad = core.unknown_scope(fname, scope)
    if bad then fail_field("scope", bad) end
  end
  if container ~= nil then container = container_name(fname, container) end
  if arguments ~= nil and scope == "singleton" then
    fail_field("arguments", fname .. ": a singleton takes no arguments (it is made once, for whoever asks first)")
  elseif arguments ~= nil and scope ~= "instance" then
    fail_field("arguments", fname .. ": a registration of scope \"" .. scope .. "\" takes no arguments (its value is "
      .. "made for whoever asks first, and shared)")
  end
  if async and arguments ~= nil then
    fail_field("arguments", fname .. ": an async initializer takes no arguments (it is made with `await` for "
      .. "whoever asks first)")
  elseif async and (scope == "weak" or scope == "graph") then
    fail_field("scope", fname .. ": an async initializer cannot have scope \"" .. scope .. "\" (its value is "
      .. "kept around a synchronous resolution); use \"singleton\", \"instance\" or a custom scope")
  end
  local token, id = core.register_initializer(t, protocols, container, scope, init, name, arguments, async)
  if implements then
    for i = 1, #implements do
      local forwarded = implements[i]
      core.forward(token, forwarded[1], forwarded[2])
    end
  end
  -- registration(token, id, "initializer"), without the call.
  return setmetatable({ id = id, kind = "initializer", [TOKEN] = token }, Registration)
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

local DECORATOR = {
  type = field(STRING, "the type whose values it decorates"),
  protocols = field(TABLE, "the protocol set whose values it decorates (order-free)", "string[]"),
  fn = field(required(FUNCTION), "gets each value an initializer made for the type and the sender; returns the value "
    .. "the property gets (the same, wrapped or replaced)", "fun(value: any, sender: any): any"),
}
-- bm.decorator { type, protocols, fn }: decorators run in registration order.
function bm.decorator(definition)
  local def = check("bm.decorator", definition, DECORATOR)
  local protocols = protocol_list("bm.decorator", def.protocols)
  if def.type == nil and protocols == nil then
    fail("bm.decorator: missing required field 'type' (or 'protocols')")
  end
  local token, id = core.register_decorator(def.type, protocols, def.fn)
  return registration(token, id, "decorator")
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
  name = field(STRING, "the registration name to resolve (only registrations under it serve)"),
  arguments = field(TABLE, "the arguments for an initializer that takes them, in order", "any[]"),
}
-- The resolution cache of bm.resolve(type) without options (no container):
-- type name -> { gen, init, value } (an array, for the C side), valid while
-- the registry's generation is `gen`, as for properties (see refill). The C
-- bm.resolve (core.cached_resolve, below) serves current entries itself and
-- calls this function for everything else.
local resolve_cache = {}

-- The container and sender a resolution's `container` option gives: a Lua
-- class's object (its class, itself), a Swift object (its dynamic type is
-- the container: no name), or a container name; nil, nil without one.
local function resolution_container(fname, c)
  if c == nil then return nil, nil end
  local meta = class_of(c)
  if meta then return meta.name, c end
  if type(c) == "userdata" then return nil, c end
  return container_name(fname, c), nil
end

-- The arguments of `fname` (bm.resolve, bm.resolve_all) checked, its
-- options against `schema` (one without `name` and `arguments` refuses
-- them): protocols, container, sender, name, arguments.
local function resolution_request(fname, type_name, options, schema)
  if type_name ~= nil and type(type_name) ~= "string" then
    fail(fname .. ": argument #1 must be a type name, got " .. typeof(type_name))
  end
  local protocols, container, sender, name, args
  if options ~= nil then
    options = check(fname, options, schema)
    name = registration_name(fname, options.name)
    args = options.arguments
    protocols = protocol_list(fname, options.protocols)
    container, sender = resolution_container(fname, options.container)
  end
  if type_name == nil and protocols == nil then
    fail(fname .. ": argument #1 must be a type name, got nil")
  end
  return protocols, container, sender, name, args
end

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
  local protocols, container, sender, name, args = resolution_request("bm.resolve", type_name, options, RESOLVE)
  return core.resolve(type_name, protocols, container, sender, name, args)
end
bm.resolve = core.cached_resolve(resolve_cache, resolve)

local RESOLVE_ALL = { container = RESOLVE.container, protocols = RESOLVE.protocols }
-- bm.resolve_all(type [, { container =, protocols = }]): every registration
-- of the type that applies, named or not, run in registration order.
function bm.resolve_all(type_name, options)
  local protocols, container, sender = resolution_request("bm.resolve_all", type_name, options, RESOLVE_ALL)
  return core.resolve_all(type_name, protocols, container, sender)
end

-- bm.reset_scope(name): forgets the values kept by every registration of
-- the custom scope `name` (a user session's objects, at logout); returns how
-- many registrations it reset. Swift checks the name.
function bm.reset_scope(name)
  return core.reset_scope(name)
end

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
--
-- A Lua class's property read in a coroutine (or outside any) asks the
-- resolvers from Lua (ask_resolvers in bm4_resolution.lua calls `ask` with
-- `direct` true): `fn` is called directly and may yield. Anywhere else
-- (a Swift property, a read under a C or Swift call) Swift asks them in the
-- middle of a resolution, and a call from Swift cannot be suspended: `fn`
-- runs in a coroutine of its own, so that a resolver that yields gets an
-- error that names it and says why, instead of one that names the Swift call
-- it is under. (Without the coroutine library nothing can yield, and `fn` is
-- called directly.)
local cocreate = type(coroutine) == "table" and coroutine.create or nil
local coresume = type(coroutine) == "table" and coroutine.resume or nil
local coclose = type(coroutine) == "table" and coroutine.close or nil
local resolver_status = type(coroutine) == "table" and coroutine.status or nil

local function refuse_resolver_wait(co, registered)
  if coclose ~= nil then coclose(co) end
  fail("bm.resolver registered at " .. registered .. " yielded, but a resolver cannot wait: Swift asks it in "
    .. "the middle of a resolution, and a call from Swift cannot be suspended (serve the type with "
    .. "bm.initializer instead: a Lua initializer read from Lua may wait)")
end

function bm.resolver(fn)
  if type(fn) ~= "function" then
    fail("bm.resolver: argument #1 must be a function(request), got " .. typeof(fn))
  end
  local skip = bm.skip
  local registered = core.location()
  local function ask(container, property, type_name, protocols, spell, sender, direct)
    local request = { container = container, property = property, type = type_name, protocols = protocols,
                      spell = spell, sender = sender }
    local answer
    if direct == true then
      answer = fn(request)
    elseif cocreate ~= nil then
      local co = cocreate(fn)
      local ok, result = coresume(co, request)
      if not ok then error(result, 0) end
      if resolver_status(co) ~= "dead" then refuse_resolver_wait(co, registered) end
      answer = result
    else
      answer = fn(request)
    end
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
      errors[#errors + 1] = error_text(message) .. " (bm.on_reload callback registered at " .. entry.source .. ")"
    end
  end
  return errors
end

