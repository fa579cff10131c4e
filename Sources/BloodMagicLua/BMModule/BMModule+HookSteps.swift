// Hooks that may wait (issue 30, "Lua that can wait"): after a Lua class's
// property is injected, the prelude runs the registry's hooks itself, one
// step each, so that a hook written in Lua is called from Lua and may
// `coroutine.yield` (no Swift frame under it). Hooks of other kinds (Swift,
// another host's) still run through Swift (`core.run_hooks`).

/// What a script's hook registration hands the registry besides its
/// closure (`HookRecord.script`): its function, for the module that
/// registered it to call from Lua. Holds the module and its state weakly
/// (a copy of it sits in that state's resolution cache).
final class BMScriptHook: Sendable {
    weak let module: BMModule?
    let function: LuaReference
    let token: LoadToken

    init(module: BMModule, function: LuaReference, token: LoadToken) {
        self.module = module
        self.function = function
        self.token = token
    }
}

extension BMModule {
    /// `core.hook_steps(container, property, hooks)`: the hooks to run
    /// after an injection, in order, as a sequence: this module's Lua hooks
    /// as their functions (the prelude calls them with the object and the
    /// value), every other hook as a one-hook box for `core.run_hooks`.
    /// `hooks` is a lookup's box, or true for the hooks in force now.
    /// O(hooks), charged as work.
    func hookSteps(_ lua: LuaStack) throws -> Int32 {
        let registry = try liveRegistry()
        try BMScriptBudget.checkNames(lua, "hook", [(1, "container"), (2, "property")])
        let containerName: String = try lua.argument(1, of: "hook")
        let property: String = try lua.argument(2, of: "hook")
        let list = lua.boxedObject(at: 3) as? SpellHookList
            ?? registry.hookList(matching: container(named: containerName, object: nil), property: property)
        let steps = list?.steps ?? []
        var work = SwiftWorkMeter(lua)
        try work.add(steps.count)
        try work.flush()
        lua.pushNewTable(items: Int32(clamping: steps.count))
        for (position, step) in steps.enumerated() {
            if let script = step.script as? BMScriptHook, script.module === self, !script.token.isRevoked {
                lua.push(script.function)
                // Reported as it is handed out (as Swift reports a hook it
                // ran, whether or not it failed).
                registry.reportHooksRan(step.hook, containerName: containerName, property: property)
            } else {
                lua.pushBox(step.hook)
            }
            lua.setItem(position + 1)
        }
        return 1
    }
}
