import BloodMagic
import Foundation
import Logging
import Testing

// Containers of these tests (each test makes them inside its own registry
// with `Registry.withCurrent`, so tests running in parallel never share one).
private final class LoggedScreen: PropertyInjectionObserving {
    @Injectable var manager: RequestManager
    @Lazy var service: LoggedService
    @Injectable var client: (any RequestClient)?
    @Preference(key: "screen.volume") var volume = 5
    private(set) var observed: [String] = []
    func propertyInjected(name: String, value: Any) { observed.append(name) }
}

private final class LoggedService: DefaultConstructible {}

private final class LoggedOther {
    @Injectable var manager: RequestManager
}

private final class ResolverLogged {
    @Injectable var label: LoggedLabel
}

private struct LoggedLabel { let text: String }

/// A registry whose events go to a fresh captured log.
private func loggingRegistry(level: Logger.Level = .debug) -> (Registry, CapturedLog) {
    let registry = Registry()
    let log = CapturedLog()
    registry.logger = log.logger(level: level)
    return (registry, log)
}

@Suite("Resolution events (swift-log)")
struct ResolutionLogTests {
    @Test func aServedPropertyNamesContainerPropertyTypeAndSource() throws {
        let (registry, log) = loggingRegistry()
        let line = #line + 1
        registry.register(RequestManager.self, container: LoggedScreen.self) { _ in RequestManager(label: "screen") }
        let screen = Registry.withCurrent(registry) { LoggedScreen() }
        #expect(screen.manager.label == "screen")
        let served = try #require(log.events("served").first)
        #expect(served.level == .debug)
        #expect(served["container"] == "LoggedScreen")
        #expect(served["property"] == "manager")
        #expect(served["type"] == "RequestManager")
        #expect(served["kind"] == "initializer")
        #expect(served["source"] == "BloodMagicTests/ResolutionLogTests.swift:\(line)")
        #expect(served.message.contains("served LoggedScreen.manager (RequestManager) by the initializer registered at BloodMagicTests/ResolutionLogTests.swift:\(line)"))
        // The container observes injections: that ran, and was reported.
        #expect(log.events("hook").map(\.message) == ["ran LoggedScreen.propertyInjected(name: \"manager\") after injecting LoggedScreen.manager"])
        // A warm read reports nothing.
        let before = log.events.count
        _ = screen.manager
        _ = screen.manager
        #expect(log.events.count == before)
    }

    @Test func aSingletonIsReportedCreatedOnceAndServedToEachContainer() throws {
        let (registry, log) = loggingRegistry()
        let line = #line + 1
        registry.register(RequestManager.self, scope: .singleton) { _ in RequestManager(label: "shared") }
        let (one, two) = Registry.withCurrent(registry) { (LoggedScreen(), LoggedOther()) }
        #expect(one.manager === two.manager)
        let created = log.events("singleton")
        #expect(created.count == 1)
        #expect(created.first?["type"] == "RequestManager")
        #expect(created.first?["source"] == "BloodMagicTests/ResolutionLogTests.swift:\(line)")
        let served = log.events("served")
        #expect(served.map { "\($0["container"]).\($0["property"]) \($0["kind"])" } == ["LoggedScreen.manager singleton", "LoggedOther.manager singleton"])
    }

    @Test func hooksRunAreReportedWithTheirSource() throws {
        let (registry, log) = loggingRegistry()
        registry.register(RequestManager.self) { _ in RequestManager() }
        let line = #line + 1
        registry.addHook(for: LoggedOther.self, property: "manager", valueType: RequestManager.self) { _, _ in }
        let other = Registry.withCurrent(registry) { LoggedOther() }
        _ = other.manager
        let hook = try #require(log.events("hook").first)
        #expect(hook["container"] == "LoggedOther")
        #expect(hook["property"] == "manager")
        #expect(hook["source"] == "BloodMagicTests/ResolutionLogTests.swift:\(line)")
        #expect(hook.message == "ran the hook registered at BloodMagicTests/ResolutionLogTests.swift:\(line) after injecting LoggedOther.manager")
    }

    @Test func defaultConstructionResolversAndNilAreReported() throws {
        let (registry, log) = loggingRegistry()
        let line = #line + 1
        registry.addResolver(for: LoggedLabel.self) { request in LoggedLabel(text: request.container.name) }
        let (screen, resolved) = Registry.withCurrent(registry) { (LoggedScreen(), ResolverLogged()) }
        _ = screen.service
        #expect(screen.client == nil)
        #expect(resolved.label.text == "ResolverLogged")
        let served = log.events("served")
        #expect(served.map { "\($0["property"]):\($0["kind"])" } == ["service:default", "client:nil", "label:resolver"])
        #expect(served.last?["source"] == "BloodMagicTests/ResolutionLogTests.swift:\(line)")
        #expect(served.first?.message == "served LoggedScreen.service (LoggedService) by default construction (nothing registered)")
    }

    @Test func preferenceReadsAndWritesNameKeyAndStore() throws {
        let (registry, log) = loggingRegistry()
        registry.defaultPreferenceStore = InMemoryPreferenceStore()
        let screen = Registry.withCurrent(registry) { LoggedScreen() }
        #expect(screen.volume == 5)
        screen.volume = 7
        #expect(screen.volume == 7)
        let reads = log.events("preference.read")
        #expect(reads.count == 2)
        #expect(reads.first?["container"] == "LoggedScreen")
        #expect(reads.first?["property"] == "volume")
        #expect(reads.first?["key"] == "screen.volume")
        #expect(reads.first?["store"] == "memory")
        #expect(reads.map { $0["stored"] } == ["false", "true"])
        let writes = log.events("preference.write")
        #expect(writes.map(\.message) == ["wrote preference LoggedScreen.volume: key \"screen.volume\" in memory"])
    }

    @Test func theRegistryAPIReportsTheServedProperty() throws {
        let (registry, log) = loggingRegistry()
        registry.register(RequestManager.self) { _ in RequestManager() }
        let sender = LoggedOther()
        _ = try registry.resolve(RequestManager.self, for: sender, property: "extra")
        _ = try registry.resolveIfRegistered(
            type: SpellTypeKey(name: "RequestManager"), container: ContainerDescriptor(object: nil, key: SpellTypeKey(name: "Script")),
            property: "manager")
        #expect(log.events("served").map { "\($0["container"]).\($0["property"])" } == ["LoggedOther.extra", "Script.manager"])
    }

    @Test func nothingIsReportedAboveDebugAndSettingALoggerTakesEffectAtOnce() throws {
        let (registry, log) = loggingRegistry(level: .info)
        registry.register(RequestManager.self) { _ in RequestManager() }
        let quiet = Registry.withCurrent(registry) { LoggedOther() }
        _ = quiet.manager
        #expect(log.events.isEmpty)
        // The lookup cached above said "no events"; a new logger drops it.
        let loud = CapturedLog()
        registry.logger = loud.logger(level: .trace)
        let next = Registry.withCurrent(registry) { LoggedOther() }
        _ = next.manager
        #expect(loud.events("served").count == 1)
        #expect(log.events.isEmpty)
    }

    @Test func storesDescribeThemselvesForTheEvents() {
        #expect(InMemoryPreferenceStore().description == "memory")
        #expect(PropertyListFilePreferenceStore(fileURL: URL(fileURLWithPath: "/tmp/p.plist")).description == "file /tmp/p.plist")
        #expect(UserDefaultsPreferenceStore(suiteName: "com.example.log").description.hasPrefix("user defaults com.example.log"))
    }
}
