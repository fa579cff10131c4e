#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ScriptHost {
    /// Reloads the scripts (as ``reload()-6v5ua`` does) each time the process
    /// receives `signal`: `SIGHUP` by default, the convention of nginx,
    /// HAProxy and Prometheus (`kill -HUP <pid>`, `systemctl reload`).
    ///
    /// ```swift
    /// let served = try ScriptHost(options: .init(scriptsDirectory: "Scripts"))
    /// try served.loadStartupScripts()
    /// served.reloadOnSignal()          // kill -HUP <pid> reloads
    /// ```
    ///
    /// The signal is caught by a Dispatch signal source (no Swift code runs
    /// in a signal handler); the reload runs on the host's reload queue, a
    /// Dispatch thread, as `reload() async` does, and its outcome goes to
    /// the ``onReload(_:)`` callbacks, `bm.on_reload` and ``reloads``; a
    /// refused reload is logged. A signal sent once this returns reloads;
    /// signals that arrive while a reload runs are one more reload after
    /// it. Calling this again for the same signal changes nothing.
    ///
    /// From the first call on, the signal's default action (for `SIGHUP`,
    /// ending the process) no longer applies in this process, even after
    /// ``stopReloadingOnSignals()``. It stops with
    /// ``stopReloadingOnSignals()``, ``unload()``, or when the host goes
    /// away; it never keeps the host alive. `SIGKILL` and `SIGSTOP` cannot
    /// be caught: asking for them is a programming error.
    public func reloadOnSignal(_ signal: Int32 = SIGHUP) {
        precondition(signal > 0 && signal < signalLimit && signal != SIGKILL && signal != SIGSTOP,
                     "BloodMagic: cannot reload on signal \(signal)")
        guard !reloadChannel.signalNumbers.contains(signal) else { return }
        reloadChannel.onSignal(signal) { [weak self] in
            _ = self?.reload(noticed: [])
        }
    }

    /// Stops reloading on signals (nothing happens when the host does not).
    /// A reload in progress finishes.
    public func stopReloadingOnSignals() {
        reloadChannel.stopSignals()
    }

    /// The signals the host reloads on.
    public var reloadSignals: Set<Int32> {
        reloadChannel.signalNumbers
    }
}

/// One more than the highest signal number.
#if canImport(Darwin)
private let signalLimit: Int32 = 32
#else
private let signalLimit = Int32(NSIG)
#endif
