/// A cached lookup: the winning initializer (if any), and everything else a
/// resolution of this (type, container type) uses, as the registry held it
/// in one generation: the hooks that may follow the injection, the
/// resolvers (asked when no initializer won) and the template providers of
/// the type. A resolution takes one of these once and uses nothing else,
/// so a reload that commits while it runs cannot hand a value made by one
/// generation's initializer to another generation's hooks. A class, so
/// that a cached lookup is handed out with one retain.
@usableFromInline
final class CachedResolution: Sendable {
    @usableFromInline let record: InitializerRecord?
    @usableFromInline let hooksMayApply: Bool
    /// The registry's generation this lookup was made in (read under the
    /// lock that made it); `CachedResolution.previewGeneration` for a lookup
    /// made in a reload's preview, which no cache may keep.
    let generation: UInt64
    /// The hooks in force then that may run after an injection into this
    /// container type (for any property), in registration order.
    let hooks: [HookRecord]
    /// The resolvers in force then, when no initializer won (the only case
    /// that asks them); empty otherwise.
    let resolvers: [ResolverRecord]
    /// The template providers in force then for the property's type, in the
    /// order they are tried (a `@Partial` builds from them).
    @usableFromInline let templates: [any PartialTemplateProvider]
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
    /// Whether `typed` is a graph-scoped registration's
    /// (`GraphTypedInitializer`, see GraphScope.swift).
    @usableFromInline let typedGraph: Bool
    /// Why the lookup found no initializer although registrations named
    /// the type: the name that would have won refers to several types.
    @usableFromInline let failure: SpellError?
    /// Whether the registry reports resolution events (its logger's level
    /// when the lookup was made; setting `Registry.logger` drops cached lookups).
    @usableFromInline let reports: Bool
    /// Whether anything must run after the value is stored: hooks, the
    /// container's `propertyInjected`, or the `served` event (Registry+Logging).
    @usableFromInline let needsHooks: Bool
    /// The name this lookup was made for (nil: unnamed registrations only);
    /// a thread's cache checks it for a named property (Registry+Names).
    @usableFromInline let name: String?
    /// The winner's typed initializer taking arguments (a
    /// `TypedArgumentInitializer1`/`2`, see ``InitializerArguments/typed``)
    /// and its class, so that a Swift resolution with arguments reaches it
    /// from the lookup it borrows, with no reference counting of the
    /// record's parts (see `withTypedArguments`).
    @usableFromInline let typedArguments: (any AnyObject & Sendable)?
    @usableFromInline let typedArgumentsKind: ObjectIdentifier?

    init(
        record: InitializerRecord?, generation: UInt64, hooks: [HookRecord] = [], resolvers: [ResolverRecord] = [],
        templates: [any PartialTemplateProvider] = [], containerObserves: Bool, valueIsOptional: Bool = false,
        failure: SpellError? = nil, reports: Bool = false, name: String? = nil
    ) {
        self.name = name
        self.record = record
        self.generation = generation
        self.hooks = hooks
        self.resolvers = resolvers
        self.templates = templates
        let hooksMayApply = !hooks.isEmpty
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
        self.typedGraph = typed?.isGraphScoped ?? false
        let taking = record?.arguments
        self.typedArguments = taking?.typed
        self.typedArgumentsKind = taking?.typedKind
    }

    /// `body` run with the winner's typed initializer taking arguments,
    /// borrowed (the caller holds this lookup), when it is an
    /// `Initializer` (the resolution's own argument types); else nil.
    @inlinable
    func withTypedArguments<Initializer: AnyObject, Result>(
        _: Initializer.Type, _ body: (Initializer) throws -> Result
    ) rethrows -> Result? {
        guard typedArgumentsKind == ObjectIdentifier(Initializer.self) else { return nil }
        let initializer = Unmanaged.passUnretained(unsafeDowncast(typedArguments.unsafelyUnwrapped, to: Initializer.self))
        return try initializer._withUnsafeGuaranteedRef(body)
    }

    /// Whether the winning initializer can be called directly for a `Value`.
    @inlinable
    func makesTyped<Value>(_: Value.Type) -> Bool {
        typedValueType == ObjectIdentifier(Value.self)
    }

    /// Calls the winning initializer directly, or reads its singleton;
    /// only after `makesTyped` said yes (the identity check makes the
    /// downcasts exact). `stack` is the calling thread's
    /// (`ResolutionStack.currentPointer`); the caller's `whileResolving`
    /// runs nothing else (a graph-scoped value relies on it, see
    /// `GraphScopeKey.value(objects:on:whole:_:)`).
    @inlinable
    func makeTyped<Value>(_: Value.Type, for sender: AnyObject, on stack: UnsafeMutableRawPointer) throws -> Value {
        if typedSingleton != nil {
            // A made singleton: one acquire load, no lock, no cast; the slot
            // is borrowed (a `let` of this lookup, which the caller holds),
            // so the read retains nothing but the value it returns.
            let slot = Unmanaged.passUnretained(typedSingleton.unsafelyUnwrapped)
            if let made = slot._withUnsafeGuaranteedRef({ $0.typedValue(Value.self) }) { return made }
            return try record.unsafelyUnwrapped.produceTypedSingleton(Value.self, for: sender)
        }
        if typedGraph {
            let graph = Unmanaged.passUnretained(
                unsafeDowncast(typed.unsafelyUnwrapped as AnyObject, to: GraphTypedInitializer<Value>.self))
            return try graph._withUnsafeGuaranteedRef { try $0.value(for: sender, on: stack, whole: true) }
        }
        // Borrowed: `typed` is a `let` of this lookup, which the caller holds.
        let box = Unmanaged.passUnretained(unsafeDowncast(typed.unsafelyUnwrapped as AnyObject, to: TypedInitializer<Value>.self))
        return try box._withUnsafeGuaranteedRef { try $0.call(sender) }
    }

    /// The same lookup, for a property whose type is (or is not) Optional,
    /// in a registry that does (or does not) report resolution events.
    func with(valueIsOptional: Bool, reports: Bool = false) -> CachedResolution {
        CachedResolution(
            record: record, generation: generation, hooks: hooks, resolvers: resolvers, templates: templates,
            containerObserves: containerObserves, valueIsOptional: valueIsOptional, failure: failure, reports: reports,
            name: name)
    }

    /// The generation of lookups made in a reload's preview (never equal to
    /// a registry's: nothing tagged with it is ever current).
    static let previewGeneration = UInt64.max

    /// The hooks of this lookup that run after `property` is injected, in
    /// registration order.
    func hooks(for property: String) -> [HookRecord] {
        hooks.filter { $0.property == nil || $0.property == property }
    }
}
