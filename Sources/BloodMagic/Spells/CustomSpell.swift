/// What a custom spell's hooks are told about the property being accessed.
public struct SpellContext {
    /// The object that owns the property.
    public let sender: AnyObject
    /// The property's name.
    public let property: String
    /// The registry in effect.
    public let registry: Registry

    /// A context (spells make these; a script bridge may too).
    public init(sender: AnyObject, property: String, registry: Registry) {
        self.sender = sender
        self.property = property
        self.registry = registry
    }
}

/// A user-defined spell: get and set hooks around a stored value.
///
/// ```swift
/// struct Clamped: CustomSpell {
///     let range: ClosedRange<Int>
///     func set(_ newValue: inout Int, oldValue: Int, context: SpellContext) {
///         newValue = min(max(newValue, range.lowerBound), range.upperBound)
///     }
/// }
/// final class Player { @Spelled(Clamped(range: 0...10)) var volume = 5 }
/// ```
public protocol CustomSpell {
    /// The property's type.
    associatedtype Value

    /// Runs on every read with the stored value; whatever `value` holds
    /// afterwards is returned to the reader and stored back (so a hook can
    /// replace the value). Default: nothing.
    func get(_ value: inout Value, context: SpellContext)

    /// Runs on every write; whatever `newValue` holds afterwards is stored.
    /// Default: nothing.
    func set(_ newValue: inout Value, oldValue: Value, context: SpellContext)
}

extension CustomSpell {
    /// Leaves the value as it is.
    public func get(_ value: inout Value, context: SpellContext) {}
    /// Leaves the new value as it is.
    public func set(_ newValue: inout Value, oldValue: Value, context: SpellContext) {}
}

/// The property wrapper that casts a `CustomSpell` on a stored property.
@propertyWrapper
public struct Spelled<Spell: CustomSpell> {
    @usableFromInline var stored: Spell.Value
    let spell: Spell
    let explicitName: String?
    let registry: Registry?
    /// The registry current when the container was created (see `Registry.current`).
    let creationRegistry: Registry?

    /// A property holding `wrappedValue` initially, under `spell`.
    public init(wrappedValue: Spell.Value, _ spell: Spell, name: String? = nil, registry: Registry? = nil) {
        self.stored = wrappedValue
        self.spell = spell
        self.explicitName = name
        self.registry = registry
        self.creationRegistry = registry == nil ? Registry.scopedRegistry : nil
    }

    /// Not available: a custom spell wraps a stored value, so the property
    /// needs one to start with.
    @available(*, unavailable, message: "@Spelled needs an initial value: write `@Spelled(MySpell()) var name: String = \"\"`")
    public init(_ spell: Spell, name: String? = nil, registry: Registry? = nil) {
        fatalError("unavailable")
    }

    /// Not available: spells work on properties of classes only.
    @available(*, unavailable, message: "@Spelled works only on properties of classes")
    public var wrappedValue: Spell.Value {
        get { fatalError() }
        set { fatalError() }
    }

    /// Reads and writes the property of `object` through the spell's hooks.
    public static subscript<Container: AnyObject>(
        _enclosingInstance object: Container,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Container, Spell.Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Container, Spelled<Spell>>
    ) -> Spell.Value {
        get {
            let wrapper = object[keyPath: storageKeyPath]
            var value = wrapper.stored
            wrapper.spell.get(&value, context: wrapper.context(object, storageKeyPath))
            object[keyPath: storageKeyPath].stored = value
            return value
        }
        set {
            let wrapper = object[keyPath: storageKeyPath]
            var value = newValue
            wrapper.spell.set(&value, oldValue: wrapper.stored, context: wrapper.context(object, storageKeyPath))
            object[keyPath: storageKeyPath].stored = value
        }
    }

    func context(_ object: AnyObject, _ keyPath: AnyKeyPath) -> SpellContext {
        SpellContext(
            sender: object, property: explicitName ?? SpellNames.propertyName(of: keyPath),
            registry: registry ?? Registry.scopedAtRead ?? creationRegistry ?? Registry.shared
        )
    }
}

/// Type-erased hooks of a spell registered by name (the form a script
/// bridge defines spells in). Either hook may be nil.
public struct NamedSpellHooks: Sendable {
    /// Runs on read: may replace the value.
    public var get: (@Sendable (_ value: inout Any, _ context: SpellContext) -> Void)?
    /// Runs on write: may replace the new value; receives the old one.
    public var set: (@Sendable (_ newValue: inout Any, _ oldValue: Any, _ context: SpellContext) -> Void)?

    /// Hooks for a named spell.
    public init(
        get: (@Sendable (_ value: inout Any, _ context: SpellContext) -> Void)? = nil,
        set: (@Sendable (_ newValue: inout Any, _ oldValue: Any, _ context: SpellContext) -> Void)? = nil
    ) {
        self.get = get
        self.set = set
    }
}

extension Registry {
    /// Registers a custom spell under `name`, usable from Swift as
    /// `@Spelled(RegisteredSpell("name")) var x = ...` and from scripts as
    /// `bm.spell.name(...)` on a `bm.class` property (the hooks then see the
    /// Lua object as the sender, and its values as `String`, `Int`,
    /// `Double`, `Bool`, an exposed object or a `LuaValue`). Spells a
    /// script defines with `bm.define_spell` are registered here too.
    @discardableResult
    public func registerSpell(named name: String, hooks: NamedSpellHooks, source: String) -> SpellHandle {
        state.withLock { state in
            state.add(into: \.customSpells, invalidatingCaches: false) { handle in
                CustomSpellRecord(handle: handle, name: name, hooks: hooks, source: source)
            }
        }
    }

    /// Swift convenience over `registerSpell(named:hooks:source:)`.
    @discardableResult
    public func registerSpell(
        named name: String,
        fileID: String = #fileID,
        line: Int = #line,
        get: (@Sendable (_ value: inout Any, _ context: SpellContext) -> Void)? = nil,
        set: (@Sendable (_ newValue: inout Any, _ oldValue: Any, _ context: SpellContext) -> Void)? = nil
    ) -> SpellHandle {
        registerSpell(named: name, hooks: NamedSpellHooks(get: get, set: set), source: spellSource(fileID, line))
    }

    /// The hooks of the spell registered last under `name`.
    public func namedSpell(_ name: String) -> NamedSpellHooks? {
        state.withLock { state in state.customSpells.last { $0.name == name }?.hooks }
    }

    /// Where the spell registered last under `name` was registered, or nil
    /// when no spell has that name.
    package func namedSpellSource(_ name: String) -> String? {
        state.withLock { state in state.customSpells.last { $0.name == name }?.source }
    }
}

/// A `CustomSpell` that runs the hooks registered in the registry under a
/// name: from Swift (``Registry/registerSpell(named:fileID:line:get:set:)``)
/// or from a script (`bm.define_spell`, whose hooks are the script's). Reading
/// or writing with no such spell registered traps with
/// `SpellError.unknownSpell`. A hook's value that is not of the property's
/// type is converted when it can be (a ``ConvertibleSpellValue``, such as
/// a Lua number for an `Int`); otherwise the value is left unchanged.
public struct RegisteredSpell<Value>: CustomSpell, RegistrySpellNaming {
    /// The registered spell's name.
    public let name: String

    /// The spell registered under `name`.
    public init(_ name: String) {
        self.name = name
    }

    /// The registry spell it runs (for reflection: manifests, the check).
    package var registeredSpellName: String { name }

    private func hooks(_ context: SpellContext) -> NamedSpellHooks {
        guard let hooks = context.registry.namedSpell(name) else {
            fatalError("\(SpellError.unknownSpell(name: name))")
        }
        return hooks
    }

    /// Runs the registered get hook.
    public func get(_ value: inout Value, context: SpellContext) {
        guard let hook = hooks(context).get else { return }
        var boxed: Any = value
        hook(&boxed, context)
        if let typed = Self.typed(boxed) { value = typed }
    }

    /// A hook's value as the property's type, if it is one or converts to one.
    private static func typed(_ boxed: Any) -> Value? {
        if let typed = boxed as? Value { return typed }
        if let convertible = boxed as? any ConvertibleSpellValue { return try? convertible.converted(to: Value.self) }
        return nil
    }

    /// Runs the registered set hook.
    public func set(_ newValue: inout Value, oldValue: Value, context: SpellContext) {
        guard let hook = hooks(context).set else { return }
        var boxed: Any = newValue
        hook(&boxed, oldValue, context)
        if let typed = Self.typed(boxed) { newValue = typed }
    }
}

/// A custom spell that runs a spell the registry knows by name.
package protocol RegistrySpellNaming {
    /// The name it is registered under.
    var registeredSpellName: String { get }
}
