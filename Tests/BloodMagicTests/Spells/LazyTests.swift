import BloodMagic
import Foundation
import Testing

private final class Plain {}

private final class Holder {
    @Lazy var service: RequestManager
    @Lazy var optionalService: RequestManager?
    @Lazy var plain: Plain
    @Lazy var fromExpression = ProgressViewService(owner: nil)
}

private final class SharedHolder {
    @Lazy(registry: lazyThreadsRegistry) var service: ProgressViewService
}

private let lazyThreadsRegistry = Registry()
private let lazyThreadsCounter = CallCounter()

@Suite struct LazyTests {
    @Test func returnsTheSameInstanceOnEveryRead() {
        let holder = Registry.withCurrent(Registry()) { Holder() }
        Registry.withCurrent(Registry()) {
            let first = holder.service
            #expect(first === holder.service)
            #expect(first.label == "default")
            #expect(holder.$service.isResolved)
        }
    }

    @Test func aRegisteredInitializerWinsOverDefaultConstruction() {
        let registry = Registry()
        registry.register(RequestManager.self) { _ in RequestManager(label: "registered") }
        let holder = Holder()
        Registry.withCurrent(registry) {
            #expect(holder.service.label == "registered")
        }
    }

    @Test func assignmentReplacesTheValue() {
        let holder = Holder()
        Registry.withCurrent(Registry()) {
            let replacement = RequestManager(label: "assigned")
            _ = holder.service
            holder.service = replacement
            #expect(holder.service === replacement)
        }
    }

    @Test func assigningNilToAnOptionalRecreatesOnTheNextRead() {
        let holder = Holder()
        Registry.withCurrent(Registry()) {
            let first = holder.optionalService
            #expect(first != nil)
            #expect(holder.optionalService === first)
            holder.optionalService = nil
            #expect(!holder.$optionalService.isResolved)
            let second = holder.optionalService
            #expect(second != nil)
            #expect(second !== first)
        }
    }

    @Test func theInitialValueExpressionIsEvaluatedLazilyOnce() {
        let holder = Holder()
        Registry.withCurrent(Registry()) {
            #expect(!holder.$fromExpression.isResolved)
            let first = holder.fromExpression
            #expect(holder.fromExpression === first)
        }
    }

    @Test func aTypeThatCannotBeDefaultConstructedGivesAClearError() {
        let error = #expect(throws: SpellError.self) {
            try Registry.withCurrent(Registry()) { try Holder().$plain.value() }
        }
        #expect(error?.description == "Holder.plain: no initializer for Plain in Holder, and Plain cannot be default-constructed (conform it to DefaultConstructible or register an initializer)")
    }

    @Test func concurrentFirstReadsOnASharedObjectCreateTheValueOnce() {
        lazyThreadsRegistry.register(ProgressViewService.self) { sender in
            lazyThreadsCounter.increment()
            Thread.sleep(forTimeInterval: 0.02)
            return ProgressViewService(owner: sender)
        }
        let box = UncheckedBox(value: SharedHolder())
        let identities = distinctObjects(readOn: 8) { box.value.service }
        #expect(lazyThreadsCounter.value == 1)
        #expect(identities == 1)
    }
}
