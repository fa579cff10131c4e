/// How an `await` makes the value of an `async` registration
/// (``Registry/registerAsync(_:scope:fileID:line:initializer:)``) or of one
/// isolated to the main actor (``Registry/registerOnMainActor(_:scope:fileID:line:initializer:)``):
/// the record's `asynchronous` part.
///
/// The synchronous path never reads it: there the record's `make` and
/// `typed` throw while the value cannot be made synchronously, and a made
/// singleton is published in the record's ``SingletonSlot``, where the
/// synchronous path finds it as it finds any other.
final class AsyncInitialization: Sendable {
    /// Makes a value boxed as the registration's singletons are (typed);
    /// nil when, on the initializer's actor, it found the value of `slot`
    /// made already (by a synchronous read on that actor meanwhile).
    let makeBox: @Sendable (_ slot: SingletonSlot?) async throws -> SingletonBox?
    /// Whether the initializer is `async` (an isolated synchronous one is not).
    let isAsync: Bool
    /// The global actor the initializer is isolated to ("MainActor"), if known.
    let isolation: String?
    /// The makings in progress, so that each value is made once: shared
    /// with the registration's decorated copies (``decorated(by:boxing:)``),
    /// which make the same values in the same slot.
    let makings: AsyncSingletonSlot

    init(
        isAsync: Bool, isolation: String?, makings: AsyncSingletonSlot = AsyncSingletonSlot(),
        makeBox: @escaping @Sendable (SingletonSlot?) async throws -> SingletonBox?
    ) {
        self.isAsync = isAsync
        self.isolation = isolation
        self.makings = makings
        self.makeBox = makeBox
    }

    /// This part with `decorators` run, in order, on each value it makes,
    /// after the initializer (and after its actor: decorators are
    /// synchronous and `Sendable`, and get no sender). The value is boxed
    /// as `typed` (the registration's typed initializer) boxes, so that
    /// typed reads of the slot stay exact. It shares ``makings``, so the
    /// decorated and the undecorated record make a singleton once between them.
    func decorated(by decorators: [DecoratorRecord], boxing typed: (any TypedInitializing)?, type: SpellTypeKey) -> AsyncInitialization {
        let inner = makeBox
        return AsyncInitialization(isAsync: isAsync, isolation: isolation, makings: makings) { slot in
            guard let made = try await inner(slot) else { return nil }
            var value = made.anyValue
            for decorator in decorators {
                value = try decorator.decorate(value, NoSender.instance)
            }
            guard let typed else { return ErasedSingletonBox(value) }
            guard let box = typed.singletonBox(holding: value) else {
                let (expected, actual) = SpellTypeKey.distinctNames(type, SpellTypeKey(Swift.type(of: value)))
                throw SpellError.wrongValueType(
                    property: "(decorator)", container: "\(type.name) (async)", expected: expected, actual: actual,
                    source: decorators.last?.source ?? "")
            }
            return box
        }
    }

    /// The value of `record` (whose part this is): a singleton's (or a custom
    /// scope's), made once in its slot; for instance scope, a new one.
    /// `registry` is `Registry.current` while the initializer runs, so that
    /// containers it makes resolve where it does.
    func value(
        of record: InitializerRecord, registry: Registry, isolation: isolated (any Actor)? = #isolation
    ) async throws -> Any {
        guard let slot = record.slot else {
            let box = try await Registry.withCurrent(registry) { try await makeBox(nil) }
            return box.unsafelyUnwrapped.anyValue
        }
        try await makeSingleton(of: record, in: slot, registry: registry)
        return slot.existing.unsafelyUnwrapped
    }

    /// Makes the singleton of `record` in `slot`, unless it is made.
    func makeSingleton(
        of record: InitializerRecord, in slot: SingletonSlot, registry: Registry,
        isolation: isolated (any Actor)? = #isolation
    ) async throws {
        try await makings.ensureMade(
            ObjectIdentifier(slot), label: "\(record.type.name) (\(record.scope))", isMade: { slot.existing != nil }
        ) {
            if let box = try await Registry.withCurrent(registry, { try await makeBox(slot) }) {
                slot.preset(box)
                Registry.reportSingletonCreated(by: record)
            }
        }
    }
}

extension Registry {
    /// The error of a synchronous read that found the value of an `async`
    /// registration not made: it names the property being read (the
    /// innermost step in progress on this thread that is not the
    /// singleton's own) and its container.
    static func asyncValueNotReady(type: SpellTypeKey, scope: SpellScope, source: String) -> SpellError {
        let (container, property) = propertyBeingRead(type: type, scope: scope)
        return .asyncValueNotReady(property: property, container: container, type: type.name, source: source)
    }

    /// The error of a synchronous read off `actor` (its name, "MainActor")
    /// that needed an initializer isolated to it.
    static func notOnActor(_ actor: String, type: SpellTypeKey, scope: SpellScope, source: String) -> SpellError {
        let (container, property) = propertyBeingRead(type: type, scope: scope)
        return .isolatedInitializer(property: property, container: container, type: type.name, actor: actor, source: source)
    }

    /// (container, property) of the innermost resolution in progress on this
    /// thread, skipping the frame of the singleton `type` itself; ("(none)",
    /// the type's name) for a resolution with no container.
    private static func propertyBeingRead(type: SpellTypeKey, scope: SpellScope) -> (String, String) {
        let own = "\(type.name) (\(scope))"
        guard let label = resolutionsInProgress.last(where: { $0 != own }) else { return ("(none)", type.name) }
        guard let dot = label.lastIndex(of: ".") else { return (label, type.name) }
        return (String(label[..<dot]), String(label[label.index(after: dot)...]))
    }
}
