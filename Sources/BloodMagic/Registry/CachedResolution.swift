/// A cached lookup: the winning initializer (if any) and whether any hook
/// could apply to this container type. A class, so that a cached lookup is
/// handed out with one retain.
@usableFromInline
final class CachedResolution: Sendable {
    @usableFromInline let record: InitializerRecord?
    @usableFromInline let hooksMayApply: Bool
    @usableFromInline let containerObserves: Bool
    @usableFromInline let valueIsOptional: Bool
    /// The winning initializer's typed form, when a spell of its exact
    /// result type may call it directly (registered from Swift); see
    /// `makesTyped` and `makeTyped`.
    @usableFromInline let typed: (any TypedInitializing)?
    @usableFromInline let typedValueType: ObjectIdentifier?
    /// The winner's singleton slot, when it has a typed initializer and
    /// singleton scope: a typed read of a made singleton is a load from it.
    @usableFromInline let typedSingleton: SingletonSlot?
    /// Why the lookup found no initializer although registrations named
    /// the type: the name that would have won refers to several types.
    @usableFromInline let failure: SpellError?
    /// Whether the registry reports resolution events (its logger's level
    /// when the lookup was made; setting `Registry.logger` drops cached lookups).
    @usableFromInline let reports: Bool
    /// Whether anything must run after the value is stored: hooks, the
    /// container's `propertyInjected`, or the `served` event (Registry+Logging).
    @usableFromInline let needsHooks: Bool

    init(
        record: InitializerRecord?, hooksMayApply: Bool, containerObserves: Bool, valueIsOptional: Bool = false,
        failure: SpellError? = nil, reports: Bool = false
    ) {
        self.record = record
        self.hooksMayApply = hooksMayApply
        self.containerObserves = containerObserves
        self.valueIsOptional = valueIsOptional
        self.failure = failure
        self.reports = reports
        self.needsHooks = hooksMayApply || containerObserves || reports
        let typed = record?.typed
        self.typed = typed
        self.typedValueType = typed?.valueType
        self.typedSingleton = typed == nil ? nil : record?.slot
    }

    /// Whether the winning initializer can be called directly for a `Value`.
    @inlinable
    func makesTyped<Value>(_: Value.Type) -> Bool {
        typedValueType == ObjectIdentifier(Value.self)
    }

    /// Calls the winning initializer directly, or reads its singleton;
    /// only after `makesTyped` said yes (the identity check makes the
    /// downcasts exact).
    @inlinable
    func makeTyped<Value>(_: Value.Type, for sender: AnyObject) throws -> Value {
        if let typedSingleton {
            // A made singleton: one acquire load, no lock, no cast.
            if let made = typedSingleton.typedValue(Value.self) { return made }
            return try record.unsafelyUnwrapped.produceTypedSingleton(Value.self, for: sender)
        }
        // Borrowed: `typed` is a `let` of this lookup, which the caller holds.
        let box = Unmanaged.passUnretained(unsafeDowncast(typed.unsafelyUnwrapped as AnyObject, to: TypedInitializer<Value>.self))
        return try box._withUnsafeGuaranteedRef { try $0.call(sender) }
    }

    /// The same lookup, for a property whose type is (or is not) Optional,
    /// in a registry that does (or does not) report resolution events.
    func with(valueIsOptional: Bool, reports: Bool = false) -> CachedResolution {
        CachedResolution(
            record: record, hooksMayApply: hooksMayApply, containerObserves: containerObserves,
            valueIsOptional: valueIsOptional, failure: failure, reports: reports)
    }
}
