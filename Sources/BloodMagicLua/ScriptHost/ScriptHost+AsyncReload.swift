extension ScriptHost {
    /// Reloads the scripts as ``reload()-6v5ua`` does, without blocking the
    /// caller's thread: the reload runs on the host's reload queue (a
    /// Dispatch thread, never Swift concurrency's cooperative pool or a
    /// server's event loop), and the calling task resumes with its outcome.
    ///
    /// ```swift
    /// func reloadScripts(_ host: ScriptHost) async {
    ///     do {
    ///         let report = try await host.reload()
    ///         print(report)
    ///     } catch {
    ///         print(error)    // every failing file; the old wiring is in force
    ///     }
    /// }
    /// ```
    ///
    /// Reloads of one host run one at a time. A call made while another
    /// caller's reload is queued but has not started joins it (both get its
    /// outcome: it reads the files after both asked), so a burst of calls is
    /// not a burst of reloads. Cancelling the calling task does not stop a
    /// reload once asked for: a reload is a transaction, done whole or not
    /// at all; the task resumes when it ends.
    ///
    /// The ``onReload(_:)`` callbacks and `bm.on_reload` run on the reload
    /// queue; ``reloads`` delivers the event to its iterating tasks.
    /// In an `async` context this is the `reload()` Swift calls (write
    /// `try await host.reload()`).
    @discardableResult
    public func reload() async throws(ScriptLoadError) -> ScriptReloadReport {
        let outcome = await reloadChannel.reload { [self] in reload(noticed: []) }
        return try outcome.get()
    }

    /// Every reload of this host from now on, successful or refused,
    /// however it started (``reload()-6v5ua``, ``reload()-76opn``, a watched change, a signal), as
    /// an `AsyncSequence`. See ``ScriptReloadEvents`` for when an iteration
    /// begins to hear, and on which task elements arrive.
    public var reloads: ScriptReloadEvents {
        ScriptReloadEvents(broadcaster: reloadChannel.events)
    }

    /// Tells the iterators of ``reloads`` of a reload's outcome.
    func publishReloadEvent(_ outcome: Result<ScriptReloadReport, ScriptLoadError>) {
        let events = reloadChannel.events
        guard events.hasSubscribers else { return }
        events.publish(ScriptReloadEvent(outcome: outcome))
    }
}
