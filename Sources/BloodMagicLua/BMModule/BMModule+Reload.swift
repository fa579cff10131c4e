@_spi(BloodMagicInternals) import BloodMagic
// The module's side of a script host's reload: which registrations it
// made (the ones a reload replaces), and the `bm.on_reload` callbacks the
// prelude keeps.

extension BMModule {
    /// The registrations the scripts made through this module (by handle
    /// id: copying it is free, and a lookup answers whether one is theirs)
    /// and those the host made through it (its `partials/` provider).
    var madeHandles: (scripts: [UInt64: TrackedRegistration], host: [SpellHandle]) {
        tracking.withLock { ($0.handles, $0.hostHandles) }
    }

    /// How many `bm.on_reload` callbacks are registered.
    func reloadCallbackCount() -> Int {
        (try? callPrelude("reload_callback_count", results: 1) { lua in
            lua.ensureSpace(0)
            return 0
        } read: { lua in
            (try? lua.value(at: -1, as: Int.self)) ?? 0
        }) ?? 0
    }

    /// Drops the callbacks registered after the first `count` (those of a
    /// script that failed to load).
    func forgetReloadCallbacks(after count: Int) {
        _ = try? callPrelude("forget_reload_callbacks", results: 0) { lua in
            lua.push(count)
            return 1
        } read: { _ in () }
    }

    /// Runs every `bm.on_reload` callback with `changes` (each in protected
    /// mode, one failing does not stop the others). Returns the errors, each
    /// `file:line: message (bm.on_reload callback registered at file:line)`.
    func runReloadCallbacks(_ outcome: Result<ScriptReloadReport, ScriptLoadError>) -> [String] {
        guard reloadCallbackCount() > 0 else { return [] }
        do {
            return try callPrelude("run_reload_callbacks", results: 1) { lua in
                pushChanges(outcome, lua)
                return 1
            } read: { lua in
                var messages: [String] = []
                let count = lua.valueType(at: -1) == .table ? lua.rawLength(at: -1) : 0
                for position in 0..<min(count, 1000) {
                    lua.pushItem(position + 1, ofTableAt: -1)
                    messages.append(lua.displayString(at: -1) ?? "?")
                    lua.pop()
                }
                return messages
            }
        } catch {
            return [error.message]
        }
    }

    /// Calls `prelude[name]` with what `push` pushes (it returns how many
    /// values), then `read` with the results on top.
    private func callPrelude<Result>(
        _ name: String, results: Int32, push: (LuaStack) -> Int32, read: (LuaStack) -> Result
    ) throws(LuaError) -> Result {
        guard let prelude = preludeTable else { throw LuaError(.runtime, "the bm module is not installed") }
        return try state.withStack { (lua) throws(LuaError) -> Result in
            lua.pushRawField(name, of: prelude)
            let arguments = push(lua)
            try lua.call(arguments: arguments, results: results)
            return read(lua)
        }
    }

    /// The table a `bm.on_reload` callback gets: `ok`, `files`, `added`,
    /// `removed`, `replaced` (entries as `bm.entries()` lists them) and
    /// `errors` (`file:line: message`, after a failed reload).
    private func pushChanges(_ outcome: Result<ScriptReloadReport, ScriptLoadError>, _ lua: LuaStack) {
        lua.ensureSpace(4)
        lua.pushNewTable(fields: 6)
        let files: [String]
        var lists: [(String, [SpellEntry])] = [("added", []), ("removed", []), ("replaced", [])]
        var errors: [String] = []
        switch outcome {
        case .success(let report):
            files = report.changedFiles
            lists = [("added", report.added), ("removed", report.removed), ("replaced", report.replaced)]
        case .failure(let failure):
            files = failure.changedFiles
            errors = failure.failures.map(\.message)
        }
        lua.setField("ok", to: outcome.isSuccess)
        lua.setField("files", to: files)
        lua.setField("errors", to: errors)
        for (field, entries) in lists {
            lua.pushSequence(entries) { pushEntry($0, lua) }
            lua.setField(field)
        }
    }

    /// One registration as a table: `bm.entries()`'s items and a reload's
    /// `added`, `removed` and `replaced`.
    func pushEntry(_ entry: SpellEntry, _ lua: LuaStack) {
        lua.ensureSpace(3)
        lua.pushNewTable(fields: 10)
        func set(_ field: String, _ value: (some LuaPushable)?) {
            guard let value else { return }
            lua.setField(field, to: value)
        }
        set("kind", BMModule.luaKind(entry.kind))
        if let protocols = entry.type?.protocols {
            set("protocols", protocols)
        } else {
            set("type", entry.type?.name)
        }
        set("container", entry.container.key?.name)
        set("scope", entry.scope?.rawValue)
        set("property", entry.property)
        set("name", entry.name)
        set("forwarding", entry.forwardedRegistration)
        set("arguments", entry.arguments)
        if entry.isAsync { set("async", true) }
        set("isolation", entry.isolation)
        set("source", entry.source)
    }
}

extension Result {
    /// Whether this is a success.
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
