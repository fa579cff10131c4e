@_spi(BloodMagicInternals) import BloodMagic
@testable import BloodMagic
import Foundation
import Synchronization
import Testing
import TestSupport

// Issue 15: a script host's reload swaps its registrations in one step.

private final class StagedService {
    let label: String
    init(label: String) { self.label = label }
}

private final class StagedScreen {
    @Injectable var service: StagedService
    @Lazy var other: StagedService
}

private final class StagedPanel {
    @Lazy var other: StagedService
}

@Suite struct RegistryStagingTests {
    @Test func stagedRegistrationsAreNotInForceUntilCommitted() throws {
        let registry = Registry()
        let old = registry.registerInitializer(type: SpellTypeKey(StagedService.self), source: "old.lua:1") { _ in
            StagedService(label: "old")
        }
        let stage = registry.openStage()
        let staged = registry.withStage(stage) {
            registry.registerInitializer(type: SpellTypeKey(StagedService.self), source: "new.lua:1") { _ in
                StagedService(label: "new")
            }
        }
        let hook = registry.withStage(stage) {
            registry.addHook(property: "service", source: "new.lua:2") { _, _, _ in }
        }
        #expect(registry.entries.map(\.handle) == [old])
        #expect(registry.stagedEntries(stage).map(\.handle) == [staged, hook])
        let before = Registry.withCurrent(registry) { StagedScreen() }
        #expect(try before.$service.value().label == "old")

        #expect(registry.commitStage(stage, replacing: [old]) != nil)
        #expect(registry.entries.map(\.handle) == [staged, hook])
        #expect(!registry.isOpen(stage))
        let after = Registry.withCurrent(registry) { StagedScreen() }
        #expect(try after.$service.value().label == "new")
        // Values already injected stay.
        #expect(try before.$service.value().label == "old")
    }

    @Test func aDiscardedStageChangesNothing() throws {
        let registry = Registry()
        let old = registry.register(StagedService.self) { _ in StagedService(label: "old") }
        let generation = registry.generation.current
        let stage = registry.openStage()
        _ = registry.withStage(stage) { registry.register(StagedService.self) { _ in StagedService(label: "new") } }
        registry.discardStage(stage)
        #expect(registry.entries.map(\.handle) == [old])
        #expect(registry.stagedEntries(stage).isEmpty)
        #expect(registry.commitStage(stage, replacing: [old]) == nil, "a discarded stage cannot be committed")
        #expect(registry.entries.map(\.handle) == [old])
        #expect(registry.generation.current == generation, "staging must not invalidate lookups")
        #expect(try Registry.withCurrent(registry) { StagedScreen() }.$service.value().label == "old")
    }

    @Test func unregisteringAStagedHandleRemovesItFromTheStage() {
        let registry = Registry()
        let stage = registry.openStage()
        let (first, second) = registry.withStage(stage) {
            (registry.register(StagedService.self) { _ in StagedService(label: "1") },
             registry.addHook(property: "x", source: "s:1") { _, _, _ in })
        }
        #expect(registry.unregister([first]) == 1)
        #expect(registry.stagedEntries(stage).map(\.handle) == [second])
        registry.discardStage(stage)
    }

    @Test func removeAllDropsOpenStages() {
        let registry = Registry()
        let stage = registry.openStage()
        _ = registry.withStage(stage) { registry.register(StagedService.self) { _ in StagedService(label: "1") } }
        registry.removeAll()
        #expect(!registry.isOpen(stage))
        #expect(registry.commitStage(stage, replacing: []) == nil)
        #expect(registry.entries.isEmpty)
    }

    @Test func aPresetSingletonKeepsItsValue() throws {
        let registry = Registry()
        let made = CallCounter()
        let old = registry.register(StagedService.self, scope: .singleton) { _ in
            StagedService(label: "made \(made.increment())")
        }
        let first = try Registry.withCurrent(registry) { StagedScreen() }.$service.value()
        let values = registry.madeSingletonValues([old])
        #expect((values[old] as? StagedService) === first)
        let stage = registry.openStage()
        let kept = registry.withStage(stage) {
            registry.register(StagedService.self, scope: .singleton) { _ in StagedService(label: "made \(made.increment())") }
        }
        let remade = registry.withStage(stage) {
            registry.register(StagedService.self, container: StagedScreen.self, scope: .singleton) { _ in
                StagedService(label: "made \(made.increment())")
            }
        }
        registry.commitStage(stage, replacing: [old], presetSingletons: [kept: values[old]!])
        let screen = Registry.withCurrent(registry) { StagedScreen() }
        let panel = Registry.withCurrent(registry) { StagedPanel() }
        // A panel is served by the kept singleton; a screen by the new, more
        // specific one, made anew.
        #expect(try panel.$other.value() === first)
        #expect(try screen.$service.value().label == "made 2")
        #expect(made.value == 2)
        _ = remade
    }

    /// Readers on other threads see the old initializer or the new one,
    /// never neither (the swap is one step) and never an error.
    @Test func readersDuringCommitsSeeOldOrNewNeverNothing() {
        let registry = Registry()
        var current = registry.register(StagedService.self) { _ in StagedService(label: "v0") }
        let failures = Atomic<Int>(0)
        let running = Atomic<Bool>(true)
        let box = UncheckedBox(value: registry)
        let readers = DispatchGroup()
        for _ in 0..<4 {
            readers.enter()
            Thread.detachNewThread {
                defer { readers.leave() }
                let registry = box.value
                while running.load(ordering: .relaxed) {
                    let screen = Registry.withCurrent(registry) { StagedScreen() }
                    guard let value = try? screen.$service.value(), value.label.hasPrefix("v") else {
                        failures.add(1, ordering: .relaxed)
                        continue
                    }
                }
            }
        }
        for round in 1...300 {
            let stage = registry.openStage()
            let next = registry.withStage(stage) {
                registry.register(StagedService.self) { _ in StagedService(label: "v\(round)") }
            }
            registry.commitStage(stage, replacing: [current])
            current = next
        }
        running.store(false, ordering: .relaxed)
        readers.wait()
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(registry.entries.count == 1)
    }

    /// The index the lookups use follows a commit: a Swift registration of
    /// the same slot comes back when the scripts' one goes, and types no
    /// registration serves any more leave no trace.
    @Test func aCommitKeepsTheLookupIndexRight() throws {
        let registry = Registry()
        let swift = registry.register(StagedService.self) { _ in StagedService(label: "swift") }
        func stageLabels(_ labels: [String], replacing old: [SpellHandle]) -> [SpellHandle] {
            let stage = registry.openStage()
            let handles = registry.withStage(stage) {
                labels.map { label in
                    registry.registerInitializer(type: SpellTypeKey(StagedService.self), source: "\(label).lua:1") { _ in
                        StagedService(label: label)
                    }
                }
            }
            // Names no Swift type has: the index's lists by type.
            _ = registry.withStage(stage) {
                labels.map { label in
                    registry.registerInitializer(type: SpellTypeKey(name: "Only\(label)"), source: "\(label).lua:2") { _ in label }
                }
            }
            registry.commitStage(stage, replacing: old)
            return handles + registry.entries.filter { $0.type?.name.hasPrefix("Only") == true }.map(\.handle)
        }
        func label() throws -> String { try Registry.withCurrent(registry) { StagedPanel() }.$other.value().label }
        var scripts = stageLabels(["a"], replacing: [])
        #expect(try label() == "a")
        #expect(registry.diagnostics.contains { $0.handles.contains(swift) }, "the later registration overrides the Swift one")
        scripts = stageLabels(["b", "c"], replacing: scripts)
        #expect(try label() == "c")
        scripts = stageLabels([], replacing: scripts)
        #expect(try label() == "swift", "the Swift registration is in force again")
        #expect(registry.entries.map(\.handle) == [swift])
        #expect(registry.diagnostics.isEmpty)
        let indexed = registry.state.withLock { ($0.initializersByType.count, $0.initializersBySlot.count) }
        #expect(indexed == (1, 1), "the index kept types nothing serves")
    }

    /// A commit merges the stage's own index (built while staging) into
    /// the registry's: the lists, the lookup index and the shadowing
    /// diagnostics come out as if each staged initializer had been
    /// registered in force, in order.
    @Test func aCommitIndexesAndDiagnosesAsRegisteringInForceWould() {
        /// Script registrations: (type, container, source); a source ending
        /// in "!" is unregistered while staged.
        let scripts: [(String, ContainerMatch, String)] = [
            ("Alpha", .any, "s.lua:1"), ("Beta", .any, "s.lua:2"), ("Alpha", .any, "s.lua:3"),
            ("Gamma", .exactly(SpellTypeKey(StagedPanel.self)), "s.lua:4"), ("Beta", .any, "s.lua:5!"),
            ("Delta", .any, "s.lua:6"), ("Alpha", .any, "s.lua:7"), ("Gamma", .any, "s.lua:8"),
        ]
        func registerSwift(_ registry: Registry) -> [SpellHandle] {
            [registry.registerInitializer(type: SpellTypeKey(name: "Alpha"), source: "swift:1") { _ in 0 },
             registry.registerInitializer(type: SpellTypeKey(name: "Gamma"), source: "swift:2") { _ in 0 },
             registry.registerInitializer(type: SpellTypeKey(name: "Old"), source: "swift:3") { _ in 0 }]
        }
        func registerScripts(_ registry: Registry) {
            var doomed: [SpellHandle] = []
            for (type, container, source) in scripts {
                let handle = registry.registerInitializer(type: SpellTypeKey(name: type), container: container, source: source) { _ in 0 }
                if source.hasSuffix("!") { doomed.append(handle) }
            }
            _ = registry.unregister(doomed)
        }
        func picture(_ registry: Registry) -> (list: [String], latest: [String: String], byType: [String: [String]], diagnostics: [String]) {
            registry.state.withLock { state in
                (state.initializers.map(\.source),
                 Dictionary(uniqueKeysWithValues: state.initializersBySlot.map { ("\($0.key.type.name) \($0.key.rule)", $0.value.last!.source) }),
                 Dictionary(uniqueKeysWithValues: state.initializersByType.map { ($0.key.name, $0.value.map(\.source)) }),
                 state.diagnostics.map(\.message))
            }
        }
        // In force, one by one, after the Swift registrations but the third.
        let inForce = Registry()
        let swiftInForce = registerSwift(inForce)
        inForce.unregister([swiftInForce[2]])
        registerScripts(inForce)
        // Staged over an earlier load of other scripts, replacing them and
        // the third Swift registration.
        let staged = Registry()
        let swift = registerSwift(staged)
        let earlier = staged.registerInitializer(type: SpellTypeKey(name: "Alpha"), source: "earlier.lua:1") { _ in 0 }
        let stage = staged.openStage()
        staged.withStage(stage) { registerScripts(staged) }
        #expect(picture(staged).list == ["swift:1", "swift:2", "swift:3", "earlier.lua:1"], "nothing staged is in force")
        #expect(staged.commitStage(stage, replacing: [earlier, swift[2]]) != nil)

        let (expected, actual) = (picture(inForce), picture(staged))
        #expect(actual.list == expected.list)
        #expect(actual.latest == expected.latest)
        #expect(actual.byType == expected.byType)
        #expect(actual.diagnostics == expected.diagnostics)
        #expect(actual.diagnostics.count == 4, "two Swift registrations and two staged ones are shadowed: \(actual.diagnostics)")
        #expect(!actual.diagnostics.contains { $0.contains("s.lua:5!") || $0.contains("earlier.lua") })
    }
}
