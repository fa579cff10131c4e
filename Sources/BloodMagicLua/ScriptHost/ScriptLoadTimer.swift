import BloodMagic

/// Times the load of one script file for the registry's `script.load`
/// event (see `Registry.logger`): made only while events may be on, so a
/// load with logging off reads no clock.
struct ScriptLoadTimer {
    let registry: Registry
    let started: ContinuousClock.Instant
    let registrationsBefore: Int

    /// A timer started now, or nil when the registry reports no events.
    init?(_ registry: Registry) {
        guard registry.log.mayReport, registry.log.isEnabled else { return nil }
        self.registry = registry
        self.registrationsBefore = registry.entries.count
        self.started = .now
    }

    /// Reports the load of `file`: loaded, or failed with `failure`.
    func finish(_ file: String, failure: LuaError?) {
        let duration = ContinuousClock.now - started
        registry.log.scriptLoaded(
            file: file, duration: duration, registrations: max(0, registry.entries.count - registrationsBefore),
            failure: failure?.message)
    }
}
