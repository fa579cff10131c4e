import Logging

extension Registry {
    /// Where the registry reports what it resolves, at debug level:
    /// which registration served which property of which container (with
    /// the registration's `file:line`), singletons created, hooks run,
    /// preference reads and writes (key and store), and, for a script host,
    /// script loads with their timings.
    ///
    /// By default the library's logger, label `BloodMagic`, from the
    /// backend chosen with `LoggingSystem.bootstrap`; its level is read once,
    /// at the registry's first event, so bootstrap before the first
    /// resolution (or set this property). Setting a logger takes effect at
    /// once: events are on when its level is `.debug` or `.trace`.
    ///
    /// ```swift
    /// var logger = Logger(label: "BloodMagic")
    /// logger.logLevel = .debug
    /// registry.logger = logger
    /// ```
    ///
    /// While the level is above debug, events cost one atomic load at the
    /// cold steps of a resolution and build no message; warm reads of
    /// spelled properties cost nothing.
    public var logger: Logger {
        get { log.logger }
        set {
            log.use(newValue)
            // Cached lookups carry whether events are reported.
            state.withLock { $0.invalidateCaches() }
        }
    }
}

extension Registry {
    /// Reports that `record` served `property` of `sender` through
    /// `resolve(_:for:property:)`. Out of line, behind a `mayReport` check.
    @usableFromInline
    @inline(never)
    func reportResolved(sender: AnyObject, property: String, valueType: Any.Type, record: InitializerRecord) {
        guard log.isEnabled else { return }
        log.served(
            container: SpellNames.containerName(of: sender), property: property, type: SpellTypeKey(valueType).name, by: record)
    }
}

extension Registry {
    /// Reports a singleton just created by `record`, through the registry
    /// resolving on this thread (the one whose lookup ran the initializer).
    static func reportSingletonCreated(by record: InitializerRecord) {
        guard let registry = ResolutionStack.resolvingRegistryOnThisThread, registry.log.mayReport else { return }
        registry.log.singletonCreated(by: record)
    }
}
