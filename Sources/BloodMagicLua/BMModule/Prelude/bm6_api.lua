-- The bm prelude, part 6 of 6: what the API description for tools reads, and the chunk's results.
-- One chunk with the other parts (bm1_definitions.lua says how): their locals are its locals.

---------------------------------------------------------------------------
-- The API for tools: `bmlua types` writes the editor annotations from it
---------------------------------------------------------------------------

-- The description itself is its own chunk (BMModule/bm_api.lua), compiled
-- only when a tool asks for it (ScriptHost.apiDescription), so that a new
-- state does not build its tables. It reads the schemas the checks use from
-- this scope, so the two cannot drift.
function internal.api_scope()
  return {
    field = field, required = required, sorted_keys = sorted_keys,
    ANY = ANY, STRING = STRING, TABLE = TABLE, FUNCTION = FUNCTION, BOOLEAN = BOOLEAN,
    INITIALIZER = INITIALIZER, SINGLETON = SINGLETON, HOOK = HOOK, PREFERENCE = PREFERENCE, PARTIAL = PARTIAL,
    RESOLVE = RESOLVE, DEFINE_SPELL = DEFINE_SPELL, TYPED = TYPED, PARTIAL_SPELL = PARTIAL_SPELL,
    FINAL_SPELL = FINAL_SPELL, PREFERENCE_SPELL = PREFERENCE_SPELL, RESOLVER_REQUEST = RESOLVER_REQUEST,
    TYPED_NAMED = TYPED_NAMED, RESOLVE_ALL = RESOLVE_ALL, DECORATOR = DECORATOR,
  }
end

return bm, internal
