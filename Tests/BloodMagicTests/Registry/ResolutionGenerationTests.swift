@_spi(BloodMagicInternals) import BloodMagic
@testable import BloodMagic
import Foundation
import Synchronization
import Testing
import TestSupport

// Issue 27: everything one resolution uses (initializer, hooks, resolvers,
// templates, preference key generator and overrides) comes from one
// generation of the registry, even while reloads commit on another thread.

/// Kinds of stamped values, one per way a property is served.
private enum Initialized {}
private enum Resolved {}
private enum Templated {}

/// A value that remembers the generation whose initializer (resolver,
/// template) made it, and the generation of every hook that ran after it.
private final class Stamped<Kind>: Sendable {
    let made: Int
    private let hooked = Lock<[Int]>([])

    init(_ made: Int) { self.made = made }

    func hook(_ generation: Int) { hooked.withLock { $0.append(generation) } }
    var hooks: [Int] { hooked.withLock { $0 } }
    /// Whether exactly the hooks of the value's own generation ran.
    var isOneGeneration: Bool { hooks == [made] }
}

private final class StampReader {
    @Injectable var injected: Stamped<Initialized>
    @Lazy var resolved: Stamped<Resolved>
    @Partial var templated: Stamped<Templated>
    @Preference(default: -1) var level: Int
}

/// Makes templated stamps of one generation.
private struct StampTemplates: PartialTemplateProvider {
    let generation: Int
    func templateLocation(for type: SpellTypeKey) -> String { "generation \(generation)" }
    func instantiate(_ valueType: Any.Type, type: SpellTypeKey, sender: AnyObject) throws -> Any? {
        widenTheWindow()
        return Stamped<Templated>(generation)
    }
}

/// Gives a reload the chance to commit while a resolution is half done.
private func widenTheWindow() {
    usleep(20)
}

/// Registers generation `generation`'s wiring in `stage`: an initializer, a
/// resolver, a template provider and a preference key generator and
/// override, with a hook after each spelled property. Returns the handles.
private func registerGeneration(_ generation: Int, in registry: Registry, stage: RegistryStage) -> [SpellHandle] {
    registry.withStage(stage) {
        var handles: [SpellHandle] = []
        handles.append(registry.register(Stamped<Initialized>.self) { _ in
            widenTheWindow()
            return Stamped<Initialized>(generation)
        })
        handles.append(registry.addResolver(for: Stamped<Resolved>.self) { _ in
            widenTheWindow()
            return Stamped<Resolved>(generation)
        })
        handles.append(registry.registerTemplateProvider(
            StampTemplates(generation: generation), forType: Stamped<Templated>.self))
        for property in ["injected", "resolved", "templated"] {
            handles.append(registry.addHook(property: property, source: "generation \(generation)") { _, _, value in
                (value as? Stamped<Initialized>)?.hook(generation)
                (value as? Stamped<Resolved>)?.hook(generation)
                (value as? Stamped<Templated>)?.hook(generation)
            })
        }
        handles.append(registry.setPreferenceKeyGenerator { _, property in
            "\(generation).\(property)"
        })
        handles.append(registry.overridePreference(
            container: .any, property: "level", with: PreferenceOverride(defaultValue: .int(generation)),
            source: "generation \(generation)"))
        return handles
    }
}

@Suite struct ResolutionGenerationTests {
    @Test func eightThreadsNeverMixGenerationsWhileReloadsCommit() throws {
        let registry = Registry()
        registry.defaultPreferenceStore = InMemoryPreferenceStore()
        var previous: [SpellHandle] = []
        do {
            let stage = registry.openStage()
            previous = registerGeneration(0, in: registry, stage: stage)
            registry.commitStage(stage, replacing: [])
        }
        let box = UncheckedBox(value: registry)
        let readers = ConcurrentReaders(threads: 8) { _ in
            {
                let reader = Registry.withCurrent(box.value) { StampReader() }
                let injected = try reader.$injected.value()
                let resolved = try reader.$resolved.value()
                let templated = try reader.$templated.value()
                let preference = reader.$level
                let level = try preference.get()
                var found: [String] = []
                if !injected.isOneGeneration {
                    found.append("initializer of \(injected.made), hooks of \(injected.hooks)")
                }
                if !resolved.isOneGeneration {
                    found.append("resolver of \(resolved.made), hooks of \(resolved.hooks)")
                }
                if !templated.isOneGeneration {
                    found.append("template of \(templated.made), hooks of \(templated.hooks)")
                }
                if preference.key != "\(level).level" {
                    found.append("preference key \(preference.key) with the default of \(level)")
                }
                return found
            }
        }
        // Commit new generations for a while, letting the readers get some
        // reads in.
        let commits = readers.keepChanging(for: .milliseconds(1500), untilReads: 200) { generation in
            let stage = registry.openStage()
            let handles = registerGeneration(generation, in: registry, stage: stage)
            #expect(registry.commitStage(stage, replacing: previous) != nil)
            previous = handles
        }
        let found = readers.stop()
        #expect(found.count == 0, "\(found.count) resolutions mixed generations, e.g. \(found.prefix(5))")
        #expect(readers.reads >= 200)
        #expect(commits > 50)
    }

    @Test func aLookupCarriesTheHooksResolversAndTemplatesOfItsGeneration() throws {
        let registry = Registry()
        let stage = registry.openStage()
        let first = registerGeneration(1, in: registry, stage: stage)
        registry.commitStage(stage, replacing: [])
        let reader = Registry.withCurrent(registry) { StampReader() }
        let lookup = registry.withCachedResolution(
            valueType: Stamped<Resolved>.self, object: reader, stack: ResolutionStack.currentPointer) { $0 }
        let next = registry.openStage()
        _ = registerGeneration(2, in: registry, stage: next)
        registry.commitStage(next, replacing: first)
        // The lookup made before the commit still names generation 1's.
        #expect(lookup.generation < registry.currentGeneration)
        #expect(lookup.hooks.map(\.source) == ["generation 1", "generation 1", "generation 1"])
        #expect(lookup.resolvers.count == 1)
        let made = try Registry.consult(lookup.resolvers, SpellResolutionRequest(
            container: SpellTypeKey(StampReader.self), property: "resolved", type: SpellTypeKey(Stamped<Resolved>.self),
            valueType: Stamped<Resolved>.self, spell: .lazy, sender: reader))
        #expect((made?.value as? Stamped<Resolved>)?.made == 1)
    }
}
