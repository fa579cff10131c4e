import BloodMagic
import Testing

private final class CycleViewController: SpellTypeNamed {
    static var spellTypeName: String { "ViewController" }
    @Injectable var loader: CycleResourceLoader
}

private final class CycleResourceLoader: SpellTypeNamed {
    static var spellTypeName: String { "ResourceLoader" }
    let owner: CycleViewController
    init(owner: CycleViewController) { self.owner = owner }
    @Injectable var session: CycleSession
}

private final class CycleSession {}

private final class SelfNeeding {
    @Lazy var me: SelfNeedingPart
}

private final class SelfNeedingPart {}

@Suite struct CycleTests {
    @Test func aCycleThroughTwoObjectsIsReportedWithItsChain() throws {
        let registry = Registry()
        registry.register(CycleResourceLoader.self, container: CycleViewController.self) { controller in
            let loader = CycleResourceLoader(owner: controller)
            _ = try loader.$session.value()
            return loader
        }
        registry.register(CycleSession.self, container: CycleResourceLoader.self) { loader in
            _ = try loader.owner.$loader.value()
            return CycleSession()
        }
        let error = #expect(throws: SpellError.self) {
            try Registry.withCurrent(registry) { try CycleViewController().$loader.value() }
        }
        #expect(error?.description == "dependency cycle: ViewController.loader -> ResourceLoader.session -> ViewController.loader")
        #expect(error == .dependencyCycle(chain: ["ViewController.loader", "ResourceLoader.session", "ViewController.loader"]))
        #expect(Registry.resolutionsInProgress.isEmpty)
    }

    @Test func aPropertyNeedingItselfIsACycleNotAStackOverflow() throws {
        let registry = Registry()
        registry.register(SelfNeedingPart.self) { sender in
            _ = try (sender as! SelfNeeding).$me.value()
            return SelfNeedingPart()
        }
        let error = #expect(throws: SpellError.self) {
            try Registry.withCurrent(registry) { try SelfNeeding().$me.value() }
        }
        #expect(error?.description == "dependency cycle: SelfNeeding.me -> SelfNeeding.me")
    }

    @Test func bridgeStepsAndSwiftStepsShareOneTracker() throws {
        let registry = Registry()
        let object = UncheckedBox(value: CycleSession())
        registry.register(CycleSession.self) { _ in
            try Registry.trackResolution(container: "CycA", property: "b", object: object.value) {
                try Registry.trackResolution(container: "CycB", property: "a", object: nil) {
                    try Registry.trackResolution(container: "CycA", property: "b", object: object.value) { CycleSession() }
                }
            }
        }
        let error = #expect(throws: SpellError.self) {
            try Registry.withCurrent(registry) { try CycleResourceLoader(owner: CycleViewController()).$session.value() }
        }
        #expect(error?.description == "dependency cycle: CycA.b -> CycB.a -> CycA.b")
    }

    @Test func theSameTypeInTwoObjectsIsNotACycle() throws {
        let registry = Registry()
        registry.register(CycleResourceLoader.self) { controller in
            let loader = CycleResourceLoader(owner: controller as! CycleViewController)
            return loader
        }
        registry.register(CycleSession.self) { loader in
            // Resolving another object's property of the same name is fine.
            let other = CycleResourceLoader(owner: CycleViewController())
            _ = other
            return CycleSession()
        }
        let controller = CycleViewController()
        let loader = try Registry.withCurrent(registry) { try controller.$loader.value() }
        let session = try Registry.withCurrent(registry) { try loader.$session.value() }
        #expect(loader.owner === controller)
        #expect(try Registry.withCurrent(registry) { try loader.$session.value() } === session)
    }
}
