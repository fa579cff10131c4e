/// One registered initializer. A class so that cached lookups hand it
/// out with a single retain.
@usableFromInline
final class InitializerRecord: Sendable {
    let handle: SpellHandle
    let type: SpellTypeKey
    let container: ContainerMatch
    let scope: SpellScope
    @usableFromInline let source: String
    let make: @Sendable (AnyObject) throws -> Any
    @usableFromInline let slot: SingletonSlot?
    /// The same initializer with its static result type, when it was
    /// registered from Swift: a spell of exactly that type calls it
    /// directly, with no boxing of the value and no dynamic cast.
    @usableFromInline let typed: (any TypedInitializing)?
    /// The registration's name (see ``SpellName``), or nil: a named
    /// registration serves only lookups of that name, an unnamed one only
    /// lookups without a name.
    let name: String?
    /// For a forwarding registration (Registry+Forwarding): the
    /// registration whose value it serves under another type.
    let forwarded: InitializerRecord?
    /// For a decorated copy (Registry+Decorators): the record as
    /// registered, whose singleton slot it shares.
    let undecorated: InitializerRecord?
    /// The arguments it takes besides the sender (Registry+Arguments), or
    /// nil: then `make` is what a resolution without arguments runs, and
    /// for one that takes arguments, `make` throws the mismatch.
    @usableFromInline let arguments: InitializerArguments?
    /// For an `async` or actor-isolated registration (Registry+Async,
    /// Registry+Isolation): how an `await` makes its value. Never read on
    /// the synchronous path: there, `make` and `typed` throw while the
    /// value cannot be made synchronously.
    let asynchronous: AsyncInitialization?

    init(
        handle: SpellHandle, type: SpellTypeKey, container: ContainerMatch, scope: SpellScope, source: String,
        make: @escaping @Sendable (AnyObject) throws -> Any, slot: SingletonSlot?, typed: (any TypedInitializing)? = nil,
        name: String? = nil, forwarded: InitializerRecord? = nil, undecorated: InitializerRecord? = nil,
        arguments: InitializerArguments? = nil, asynchronous: AsyncInitialization? = nil
    ) {
        self.asynchronous = asynchronous
        self.arguments = arguments
        self.undecorated = undecorated
        self.name = name
        self.forwarded = forwarded
        self.handle = handle
        self.type = type
        self.container = container
        self.scope = scope
        self.source = source
        self.make = make
        self.slot = slot
        self.typed = typed
    }

    /// A copy of this record with `make`, `slot` and `forwarded` replaced;
    /// every other field (name, arguments, decoration, asynchrony, ...) is
    /// copied, so a copy made this way loses nothing of the registration.
    func replacing(
        make: @escaping @Sendable (AnyObject) throws -> Any, slot: SingletonSlot?, forwarded: InitializerRecord?
    ) -> InitializerRecord {
        InitializerRecord(
            handle: handle, type: type, container: container, scope: scope, source: source, make: make, slot: slot,
            typed: typed, name: name, forwarded: forwarded, undecorated: undecorated, arguments: arguments,
            asynchronous: asynchronous)
    }

    var entry: SpellEntry {
        SpellEntry(
            handle: handle, kind: scope == .singleton ? .singleton : .initializer, type: type,
            container: container, property: nil, scope: scope, source: source, name: name,
            forwardsTo: forwarded?.handle,
            forwardedRegistration: forwarded.map { "\($0.type.name) registered at \($0.source)" },
            arguments: arguments?.names,
            isAsync: asyncMaker?.asynchronous?.isAsync ?? false, isolation: asyncMaker?.asynchronous?.isolation
        )
    }

    /// The record whose `asynchronous` part makes this record's values
    /// with `await`: itself, when it has one; for a forwarding registration
    /// (Registry+Forwarding), the async or isolated registration it serves,
    /// so that its singleton is made once, in that registration's slot,
    /// whichever type asks; else nil.
    var asyncMaker: InitializerRecord? {
        if asynchronous != nil { return self }
        if let forwarded, forwarded.asynchronous != nil { return forwarded }
        return nil
    }

    /// Runs the initializer for `sender`, honouring the scope.
    @usableFromInline
    func produce(for sender: AnyObject) throws -> Any {
        guard let slot else { return try make(sender) }
        if let made = slot.existing { return made }
        return try makeSingleton(slot, for: sender)
    }

    /// Makes the singleton (unless another thread did first) and returns it.
    /// The tracker reports an initializer that needs its own singleton as a
    /// cycle before `get` would take the slot's lock a second time.
    private func makeSingleton(_ slot: SingletonSlot, for sender: AnyObject) throws -> Any {
        try Registry.trackResolution(container: "\(type.name) (\(scope))", property: "", object: slot) {
            try slot.get {
                let box = try makeBox(for: sender)
                Registry.reportSingletonCreated(by: self)
                return box
            }
        }
    }

    /// The box of a new singleton: typed when the initializer was registered
    /// from Swift with its type, whichever path asked for the value first,
    /// so that typed reads (`SingletonSlot.typedValue`) may trust it.
    private func makeBox(for sender: AnyObject) throws -> SingletonBox {
        if let typed { return try typed.makeSingletonBox(for: sender) }
        let value = try make(sender)
        // A decorated singleton of a typed registration: boxed as the
        // registration's own are, so typed reads of the slot stay exact.
        if let registered = undecorated?.typed {
            guard let box = registered.singletonBox(holding: value) else {
                let (expected, actual) = SpellTypeKey.distinctNames(type, SpellTypeKey(Swift.type(of: value)))
                throw SpellError.wrongValueType(
                    property: "(decorator)", container: "\(type.name) (singleton)", expected: expected, actual: actual,
                    source: source)
            }
            return box
        }
        return ErasedSingletonBox(value)
    }

    /// The singleton as the type its typed initializer returns, made if
    /// needed; only after `CachedResolution.makesTyped` said yes.
    @usableFromInline
    func produceTypedSingleton<Value>(_: Value.Type, for sender: AnyObject) throws -> Value {
        let slot = slot.unsafelyUnwrapped
        if let made = slot.typedValue(Value.self) { return made }
        _ = try makeSingleton(slot, for: sender)
        return slot.typedValue(Value.self).unsafelyUnwrapped
    }
}
