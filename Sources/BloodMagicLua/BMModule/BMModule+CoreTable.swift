// The core table: the Swift functions the prelude (Prelude/bm*.lua) is run with, by
// the names it calls them (`core.register_initializer`, `core.resolve`, ...).

extension BMModule {
    /// Pushes the core table: a Swift function per name the prelude calls,
    /// `generation` (BMFastResolution.swift) and `max_depth`.
    func pushCoreTable(_ lua: LuaStack) {
        lua.ensureSpace(4)
        lua.pushNewTable(fields: 26)
        let functions: [(String, LuaFunctionBody)] = [
            ("where", { lua in
                lua.pushScriptPosition()
                return 1
            }),
            ("location", { lua in
                lua.push(lua.callerLocation())
                return 1
            }),
            ("field_where", { lua in
                let key: String = try lua.argument(1, of: "field_where")
                lua.push(self.fieldLocation(key, lua).map { $0 + ": " } ?? "")
                return 1
            }),
            ("keep_frame", { lua in
                guard lua.valueType(at: 1) == .function else { throw LuaError(.usage, "keep_frame: expected a function") }
                lua.pushFrameKeeper(calling: 1)
                return 1
            }),
            ("register_initializer", { lua in try self.registerInitializer(lua) }),
            ("unknown_scope", { lua in try self.unknownScope(lua) }),
            ("reset_scope", { lua in try self.resetScope(lua) }),
            ("register_hook", { lua in try self.registerHook(lua) }),
            ("register_preference", { lua in try self.registerPreference(lua) }),
            ("register_partial", { lua in try self.registerPartial(lua) }),
            ("register_resolver", { lua in try self.registerResolver(lua) }),
            ("register_preference_keys", { lua in try self.registerPreferenceKeys(lua) }),
            ("unregister", { lua in try self.unregister(lua) }),
            ("resolve", { lua in try self.resolve(lua) }),
            ("resolve_all", { lua in try self.resolveAll(lua) }),
            ("forward", { lua in try self.forward(lua) }),
            ("register_decorator", { lua in try self.registerDecorator(lua) }),
            ("resolve_property", { lua in try self.resolveProperty(lua) }),
            ("ask_resolver", { lua in try self.askResolver(lua) }),
            ("resolver_chose", { lua in try self.resolverChose(lua) }),
            ("note_unserved", { lua in self.noteUnserved(lua) }),
            ("lookup", { lua in try self.lookup(lua) }),
            ("live_frames", { lua in try self.liveFrames(lua) }),
            ("cached_resolve", { lua in try self.makeCachedResolve(lua) }),
            ("partial", { lua in try self.partial(lua) }),
            ("run_hooks", { lua in try self.runHooks(lua) }),
            ("hook_steps", { lua in try self.hookSteps(lua) }),
            ("preference_get", { lua in try self.preferenceGet(lua) }),
            ("preference_set", { lua in try self.preferenceSet(lua) }),
            ("entries", { lua in try self.entries(lua) }),
            ("note_class", { lua in try self.noteClass(lua) }),
            ("register_spell", { lua in try self.registerSpell(lua) }),
            ("named_spell", { lua in try self.namedSpell(lua) }),
            ("spell_hook", { lua in try self.spellHook(lua) }),
            ("suite_problem", { lua in try BMModule.suiteProblem(lua) }),
        ]
        for (name, body) in functions {
            // Finalizers still run while the state closes (from LuaState's
            // deinit), and may call bm; the module holds that state unowned,
            // so reaching it then traps. bm refuses instead: Lua turns the
            // finalizer's error into a warning, and the close goes on.
            lua.push(function: { lua in
                if lua.isClosing { throw LuaError(.usage, "bm cannot be used while the Lua state closes") }
                return try body(lua)
            })
            lua.setField(name)
        }
        pushGenerationReader(lua)
        lua.setField("generation")
        lua.setField("max_depth", to: BMModule.maxLuaDepth)
    }

    /// How many resolutions of Lua class properties may nest (see the
    /// prelude's `MAX_DEPTH`): below Lua's C stack limit of about 200
    /// nested calls, which every nested step uses one of.
    static let maxLuaDepth = 150
}
