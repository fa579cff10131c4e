// Scopes beyond instance and singleton (SpellScope.swift): the weak and
// graph scopes keep their values around the registered initializer; a
// custom scope keeps one value per registration in a singleton's slot,
// which `reset(scope:)` replaces for every registration of the scope at
// once.

/// Where a weak- or graph-scoped registration keeps its values.
@usableFromInline
enum ScopeStorage: Sendable {
    case weak(WeakScopeSlot)
    case graph(GraphScopeKey)

    /// The value kept for this read, else one made by `make` (and kept as
    /// the scope says).
    func value<Value>(_ make: () throws -> Value) throws -> Value {
        switch self {
        case .weak(let slot): try slot.get(make)
        case .graph(let key): try key.value(make)
        }
    }
}

extension Registry {
    /// `initializer` and its typed form, wrapped so that a weak or graph
    /// scope keeps their values; unchanged for the other scopes.
    static func keeping(
        _ initializer: @escaping @Sendable (AnyObject) throws -> Any, _ typed: (any TypedInitializing)?,
        scope: SpellScope, type: SpellTypeKey
    ) -> (@Sendable (AnyObject) throws -> Any, (any TypedInitializing)?) {
        let storage: ScopeStorage
        switch scope.kind {
        case .weak:
            storage = .weak(WeakScopeSlot(label: "\(type.name) (weak)"))
        case .graph:
            storage = .graph(GraphScopeKey(label: type.name))
        default:
            return (initializer, typed)
        }
        return ({ sender in try storage.value { try initializer(sender) } }, typed?.kept(by: storage))
    }

    /// Forgets the values kept by every registration of `scope`, at once:
    /// the next resolution of each makes a new one (a user session's
    /// objects, at logout). Values already handed out stay with their
    /// holders. Returns how many registrations were reset.
    ///
    /// For a custom scope (``SpellScope/custom(_:)``) and ``SpellScope/singleton``.
    /// The ``SpellScope/weak`` and ``SpellScope/graph`` scopes keep nothing
    /// to reset (a weak value goes when its last holder lets it go; a graph
    /// value when its resolution ends), nor does ``SpellScope/instance``
    /// (see ``reset(_:)`` for an object's properties): 0.
    ///
    /// A reader on another thread meanwhile gets the old value or the new
    /// one, whole: each registration's values are made exactly once in a
    /// slot that is never emptied; the reset puts a new, empty slot in
    /// force with one generation bump, as any registration does.
    @discardableResult
    public func reset(scope: SpellScope) -> Int {
        guard scope.keepsOneValue else { return 0 }
        // The old records (and the values in their slots) are released
        // after the lock (when `replaced` goes), where a value's deinit
        // may use the registry.
        var replaced: [InitializerRecord] = []
        let count = state.withLock { state -> Int in
            // The new record of each registration whose slot was replaced.
            var renewed: [SpellHandle: InitializerRecord] = [:]
            let count = state.emptySlots(of: scope, renewed: &renewed, replaced: &replaced)
            // An open stage (a reload's) holds registrations that are not in
            // force yet: its forwardings to a registration reset here must
            // serve the new record once the stage is committed, and its own
            // registrations of the scope must not bring back a value preset
            // from before the reset. O(staged initializers).
            var index = state.stages.startIndex
            while index != state.stages.endIndex {
                _ = state.stages.values[index].emptySlots(of: scope, renewed: &renewed, replaced: &replaced)
                // Values a reload read before this reset (to carry them over
                // at its preview and commit) are not preset any more.
                state.stages.values[index].scopesReset.insert(scope)
                index = state.stages.index(after: index)
            }
            guard count > 0 else { return 0 }
            state.invalidateCaches()
            return count
        }
        return count
    }

    /// Makes `scope` (a custom one) known to scripts: a script may register
    /// with `scope = "<name>"` only for a scope declared this way or used
    /// by a Swift registration (a typo is an error, not a new scope that
    /// nothing resets).
    public func declareScope(_ scope: SpellScope) {
        guard scope.isCustom else { return }
        _ = state.withLock { $0.declaredScopes.insert(scope) }
    }

    /// The custom scopes declared (``declareScope(_:)``) or registered with
    /// from Swift, by name.
    public var declaredScopes: [SpellScope] {
        state.withLock { $0.declaredScopes }.sorted { $0.rawValue < $1.rawValue }
    }

    /// Whether `scope` is a built-in scope or a declared custom one.
    public func knowsScope(_ scope: SpellScope) -> Bool {
        !scope.isCustom || state.withLock { $0.declaredScopes.contains(scope) }
    }
}

extension RegistryState {
    /// Gives each initializer of `scope` here a new, empty slot, and points
    /// each forwarding here whose registration was renewed (here, or before
    /// in `renewed`: those in force, for a stage) at the new record (a
    /// forwarding of the scope reads its slot; a factory only names it), so
    /// it no longer keeps the old one alive. Adds the new records to
    /// `renewed` and the old ones to `replaced`; returns how many
    /// registrations of `scope` are here. O(initializers).
    mutating func emptySlots(
        of scope: SpellScope, renewed: inout [SpellHandle: InitializerRecord], replaced: inout [InitializerRecord]
    ) -> Int {
        var count = 0
        for record in initializers where record.scope == scope {
            replaced.append(record)
            count += 1
            guard record.forwarded == nil else { continue }
            let fresh = record.withEmptySlot()
            replaceInitializer(with: fresh)
            renewed[record.handle] = fresh
        }
        guard !renewed.isEmpty else { return count }
        for record in initializers {
            guard let target = record.forwarded, let fresh = renewed[target.handle] else { continue }
            if record.scope != scope { replaced.append(record) }
            replaceInitializer(
                with: record.scope == scope
                    ? record.forwarding(to: fresh) : record.replacing(make: record.make, slot: record.slot, forwarded: fresh))
        }
        return count
    }
}

extension RegistryState {
    /// Notes what a registration of `scope` needs the registry to know.
    mutating func note(_ scope: SpellScope) {
        if scope.isCustom { declaredScopes.insert(scope) }
        if scope == .graph { usesGraphScope = true }
    }
}

extension Registry {
    /// Whether a graph-scoped initializer was ever registered here: a bridge
    /// that resolves from a cache of its own, without the registry, must
    /// not while this is true (graph values are shared through the
    /// registry's resolution of the outermost step).
    package var usesGraphScope: Bool {
        state.withLock { $0.usesGraphScope }
    }
}

extension InitializerRecord {
    /// The same registration (name, arguments, forwarding and all) with a
    /// new, empty slot (a reset of its scope).
    func withEmptySlot() -> InitializerRecord {
        replacing(make: make, slot: slot == nil ? nil : SingletonSlot(), forwarded: forwarded)
    }
}

extension SpellEntry {
    /// " (weak scope)", " (graph scope)", " (session scope)" for an
    /// initializer whose kind does not already say its scope; else empty
    /// (what `bmlua explain` prints after the kind).
    public var scopeNote: String {
        guard let scope, scope != .instance, scope != .singleton else { return "" }
        return " (\(scope) scope)"
    }

    /// " (async)", " (on MainActor)", " (async, on MainActor)" for an
    /// initializer that is `async` or isolated to an actor (see
    /// AsyncWiring.md); else empty (what `bmlua explain` prints after the scope).
    public var asyncNote: String {
        let notes = (isAsync ? ["async"] : []) + (isolation.map { ["on \($0)"] } ?? [])
        return notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))"
    }
}

extension Registry {
    /// ``reset(scope:)`` for a script bridge: `charge` is first given the
    /// number of registrations the reset looks at (it is linear in them),
    /// and may throw to refuse it.
    package func reset(scope: SpellScope, charging charge: (Int) throws -> Void) throws -> Int {
        try charge(withResolvingState { $0.initializers.count })
        return reset(scope: scope)
    }
}
