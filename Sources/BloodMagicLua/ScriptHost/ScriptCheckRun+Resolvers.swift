import Foundation

/// Properties no initializer serves, when resolvers are registered: the
/// resolvers are asked, in the dry run, as the registry asks them at run
/// time (newest first, with the container, the property, its type and
/// spell, and the sender), and only what none serves is reported. The
/// app's own resolvers cannot run in the check: what they may serve (any
/// property, or the one type they name) is not reported.
extension ScriptCheckRun {
    /// A spelled property no registered initializer serves.
    struct UnservedProperty {
        var container: String
        var property: String
        var key: SpellTypeKey
        /// `lazy` or `injectable`.
        var kind: String
        /// Whether the container is a Swift class of the manifest.
        var isSwift: Bool
    }

    /// A property no initializer serves, reported once it is known that no
    /// resolver serves it either: at once when none is registered, else
    /// in the dry run.
    func reportUnserved(_ message: String, at source: String?, _ property: UnservedProperty) {
        if registry.hasResolvers {
            if !property.isSwift { awaitingLuaRead["\(property.container).\(property.property)"] = awaitingResolvers.count }
            awaitingResolvers.append(AwaitingResolvers(property: property, message: message, source: source))
        } else {
            add(.error, message, at: source)
        }
    }

    /// What the dry run read of a Lua class's property that awaits the
    /// resolvers: `failure` is the read's error, nil when it gave a value.
    /// An error that says nothing serves it is the finding; a value means a
    /// resolver served it (another error is the dry run's to report).
    func settleAwaitingRead(container: String, property: String, failure: LuaError?) {
        guard !awaitingLuaRead.isEmpty, let index = awaitingLuaRead.removeValue(forKey: "\(container).\(property)"),
              let awaiting = awaitingResolvers[index] else { return }
        awaitingResolvers[index] = nil
        if let failure, failure.reason.hasPrefix("\(container).\(property): no initializer for ") {
            add(.error, awaiting.message, at: awaiting.source)
        }
    }

    /// Asks the resolvers about every property still waiting for them (the
    /// Swift containers' properties, and Lua ones the dry run could not
    /// read), each a top-level call with its own budget.
    func askResolvers() {
        let waiting = awaitingResolvers.compactMap { $0 }
        awaitingResolvers = []
        awaitingLuaRead = [:]
        for awaiting in waiting {
            collectBetweenSteps()
            let property = awaiting.property
            let spell: ResolvedSpellKind = property.kind == "lazy" ? .lazy : .injectable
            let sender = senderHandle(for: property)
            let descriptor = property.isSwift
                ? ContainerDescriptor(
                    object: sender, key: SpellTypeKey(name: property.container),
                    ancestry: (manifestContainers[property.container]?.superclasses ?? []).map { SpellTypeKey(name: $0) })
                : module.container(named: property.container, object: sender)
            let found: (value: Any, source: String)?
            do {
                found = try registry.resolveFromResolvers(
                    type: property.key, container: descriptor, property: property.property, spell: spell)
            } catch {
                let failure = error as? LuaError ?? LuaError(.runtime, "\(error)")
                if failure.message.contains(Self.swiftPlaceholderMarker) { continue }   // the app's resolver: cannot tell
                add(failure, fallback: awaiting.source, suffix: " (dry run: asking the resolvers for \(property.container).\(property.property))")
                continue
            }
            guard let found else {
                add(.error, awaiting.message, at: awaiting.source)
                continue
            }
            guard property.isSwift,
                  let declared = manifestContainers[property.container]?.properties.first(where: { $0.name == property.property }),
                  let (kind, standin) = describeResolved(found.value),
                  let problem = mismatch(kind, standin, for: declared)
            else { continue }
            add(.error,
                "\(property.container).\(property.property): the resolver registered at \(found.source) \(problem)",
                at: found.source)
        }
    }

    /// The sender a resolver is handed for `property`'s container: the
    /// stand-in of a Swift container, the dry run's object of a Lua class.
    private func senderHandle(for property: UnservedProperty) -> LuaObjectHandle? {
        let function = property.isSwift ? "sender" : "dry_object"
        guard let table = property.isSwift ? support : module.preludeTable else { return nil }
        let reference = try? call(table, function, results: 1, push: { lua in
            lua.push(property.container)
            return 1
        }, read: { lua in lua.isNil(at: -1) ? nil : lua.reference(at: -1) })
        return (reference ?? nil).map { LuaObjectHandle(reference: $0, className: property.container) }
    }

    /// The kind of a resolver's value (`integer`, `string`, a stand-in's
    /// `table`…) and the stand-in type it is of, as `[bm check]`'s
    /// `result` tells them; nil for a value the check cannot see.
    private func describeResolved(_ value: Any) -> (String, String?)? {
        let lua: LuaValue
        switch value {
        case let resolved as LuaResolvedValue: lua = resolved.value
        case let handle as LuaObjectHandle: lua = .table(handle.reference)
        default: return nil
        }
        guard let support else { return nil }
        return try? call(support, "result", results: 2, push: { stack in
            stack.push(lua)
            return 1
        }, read: { stack in (stack.rawString(at: -2) ?? "nil", stack.rawString(at: -1)) })
    }
}
