import BloodMagicLua

/// The Lua host that wires the server: the Swift types the scripts
/// construct, and the containers they serve, declared for the manifest.
enum ScriptWiring {
    /// A host on `scriptsDirectory`, its scripts not loaded yet. The
    /// scripts run under limits: a script is code from outside the binary.
    static func makeHost(scriptsDirectory: String) throws -> ScriptHost {
        let host = try ScriptHost(options: .init(
            scriptsDirectory: scriptsDirectory,
            limits: LuaLimits(maxMemory: 32 << 20, maxInstructions: 10_000_000, maxTime: .seconds(1)),
            preferences: InMemoryPreferenceStore()))
        host.expose(LuaExposedType(Greeter.self)
            .constructor(decoding: Greeter.Configuration.self) { Greeter($0) }
            .property("greeting", \.greeting)
            .property("punctuation", \.punctuation))
        host.declare(GreetingController.self, PricesController.self)
        return host
    }
}
