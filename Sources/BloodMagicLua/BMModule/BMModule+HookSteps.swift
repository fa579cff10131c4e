@_spi(BloodMagicInternals) import BloodMagic
// Hooks that may wait (issue 30, "Lua that can wait"): after a Lua class's
// property is injected, the prelude runs the registry's hooks itself, one
// step each, so that a hook written in Lua is called from Lua and may
// `coroutine.yield` (no Swift frame under it). Hooks of other kinds (Swift,
// another host's) still run through Swift (`core.run_hooks`).
//
// The hook contract, which both implementations keep (the prelude's
// `run_hooks` in bm4_resolution.lua over `core.hook_steps`, and
// `core.run_hooks`, ``BMModule/runHooks(_:)``, which collects the errors
// of the Lua hooks the registry runs): after a value is stored in a
// property, every hook of the lookup that made it runs, in registration
// order, each once; a hook that fails does not stop the others; once the
// last has run, the first error is raised (a script's error keeps its
// `file:line`; a limit reached in a hook is that limit's error); what the
// hooks run is charged to the script's limits, and the steps themselves as
// work. `Tests/BloodMagicLuaTests/BMModule/BMHookContractTests.swift` runs
// one set of cases through both. (A hook that a Swift property's injection
// runs, with no Lua caller to raise in, is logged instead: see
// ``BMModule/registerHook(_:)``.)

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
        let throughSwift = tracking.withLock { $0.scriptHooksRunInSwift }
        for (position, step) in steps.enumerated() {
            if !throughSwift, let script = step.script as? BMScriptHook, script.module === self, !script.token.isRevoked {
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
