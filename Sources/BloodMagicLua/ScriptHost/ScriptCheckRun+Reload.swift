extension ScriptCheckRun {
    /// The dry run's last step: every `bm.on_reload` callback, called as
    /// the host calls it after a reload that worked and after one that
    /// failed. A callback that raises is an error at its own position.
    func dryRunReloadCallbacks() {
        guard let support else { return }
        let messages: [String]
        do {
            messages = try call(support, "dry_reload", results: 1) { lua in try lua.decode([String].self, at: -1) }
        } catch let error as LuaError {
            add(error, fallback: nil, suffix: " (running the bm.on_reload callbacks)")
            return
        } catch {
            return
        }
        for message in messages {
            add(LuaError(.runtime, message), fallback: nil)
        }
    }
}
