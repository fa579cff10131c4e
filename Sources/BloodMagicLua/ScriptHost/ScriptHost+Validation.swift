@_spi(BloodMagicInternals) import BloodMagic
import Foundation

// Validating wiring before it serves: what the app declared
// (`host.declare`) is resolved as a first read would resolve it — the
// initializer runs, its value is cast to the property's type — and every
// failure is an error at the script line to blame. A reload does this in the
// registry's preview of its commit and refuses the new wiring when anything
// fails (ScriptHost+Reload.swift); `validate()` does it with the wiring in
// force (at startup, say).

/// A container the app declared, as a validation gets an instance of it.
struct DeclaredContainer: Sendable {
    /// The container's registry name.
    let name: String
    /// Where it was declared (`fileID:line`).
    let source: String
    /// The instance declaring it made (`init()`) or was given.
    let instance: DeclaredInstance
}

/// The instance `ScriptHost.declare` made or was given, kept to validate
/// reloads with. Unchecked: the object is the app's, of any class. Only a
/// validation uses it, on the thread that reloads (inside the host's reload
/// gate, so one at a time): it reads the object's spelled properties without
/// storing into them (their cells are safe to read from any thread) and
/// hands it to initializers as their sender, as any resolution on another
/// thread of the app would.
final class DeclaredInstance: @unchecked Sendable {
    let object: AnyObject

    init(_ object: AnyObject) {
        self.object = object
    }
}

extension ScriptHost {
    /// Resolves every `@Lazy`, `@Injectable` and `@Partial` property of the
    /// containers the app declared (``declare(_:fileID:line:)``,
    /// ``declare(instance:fileID:line:)``) through the wiring in force, as
    /// each one's first read would — on the instance declaring made or was
    /// given, its initializers run, each value cast to its property's type — and
    /// throws every failure, each as `file:line: message` at the script
    /// line to blame (the registration that returned the wrong value, the
    /// misspelled registration closest to a missing one), else where the
    /// container was declared. Nothing is stored in the instances, no hook
    /// runs; values made are dropped, singletons made are kept.
    ///
    /// ``reload()-6v5ua`` (and so a watched change) does the same with the new
    /// wiring before it commits it, and refuses the wiring when anything
    /// fails. Call this after ``loadStartupScripts()`` to find at startup
    /// what would otherwise fail on the first request:
    ///
    /// ```swift
    /// host.declare(HeadlinesController.self, DigestController.self)
    /// try host.loadStartupScripts()
    /// try host.validate()          // every declared property resolves
    /// ```
    public func validate() throws(ScriptLoadError) {
        let failures = reloadGate.run { validationFailures(of: wiring.withLock { $0 }) }
        if !failures.isEmpty { throw ScriptLoadError(failures: failures) }
    }

    /// What fails when the declared containers (and, for a host whose
    /// options ask for it, the Lua classes of `wiring`'s state) are resolved
    /// through the registry as this thread sees it: inside a reload's
    /// preview, the new wiring. One error per failing property.
    func validationFailures(of wiring: HostWiring) -> [LuaError] {
        let declared = manifestRecords.withLock { records in
            records.declared.values.sorted { $0.name < $1.name }
        }
        var failures: [LuaError] = []
        for container in declared {
            let object = container.instance.object
            let found = Registry.withCurrent(registry) { SpellReflection.trialResolve(object) }
            for (property, error) in found {
                failures.append(validationError(
                    error, container: container.name, property: property, declaredAt: container.source,
                    module: wiring.module))
            }
        }
        if options.validatesLuaClasses {
            failures += luaClassFailures(of: wiring)
        }
        return failures
    }

    /// `error`, which a first read of `container.property` would trap with,
    /// as a Lua error at the line to blame: the script position the error
    /// names, else the registration it names, else (nothing registered)
    /// the closest registration the new scripts made, else the declaration.
    private func validationError(
        _ error: any Error, container: String, property: String, declaredAt declaration: String, module: BMModule
    ) -> LuaError {
        guard let spellError = error as? SpellError else {
            // A script's error, or a value that does not convert: the text
            // begins with the script's position when it has one.
            let kind = (error as? LuaError)?.kind ?? .runtime
            let text = (error as? LuaError)?.message ?? "\(error)"
            if LuaError(kind, text).chunk != nil {
                return LuaError(kind, "\(text) (resolving \(container).\(property), declared at \(declaration))")
            }
            return LuaError(kind, "\(declaration): \(container).\(property): \(text)")
        }
        var position = declaration
        var hint = ""
        switch spellError {
        case .wrongValueType(_, _, _, _, let source), .wrongResolvedType(_, _, _, _, let source),
             .initializerReturnedNil(_, _, _, let source), .staticSender(_, _, let source):
            if LuaError.parseLocation(source + ":") != nil { position = source }
        case .ambiguousTypeName(_, _, let source):
            if let source, LuaError.parseLocation(source + ":") != nil { position = source }
        case .noInitializer(_, _, let type, _):
            // A misspelled name: the closest registration the scripts made
            // (a similar name, else one a few edits away).
            let key = SpellTypeKey(name: type)
            if let near = registry.closestRegistrations(to: key).first(where: { module.madeRegistration($0.handle) }) {
                position = near.source
            } else if let (name, entry) = misspelledRegistration(of: type, module: module) {
                position = entry.source
                hint = " (closest: \(name), registered here)"
            }
        default:
            break
        }
        let shown = position == declaration ? "" : " (declared at \(declaration))"
        return LuaError(.runtime, "\(position): \(spellError.description)\(hint)\(shown)")
    }

    /// The registration of the new scripts whose type name is a few edits
    /// away from `type` (a misspelling of it), and that name.
    private func misspelledRegistration(of type: String, module: BMModule) -> (String, SpellEntry)? {
        let made = registry.entries.filter { module.madeRegistration($0.handle) && $0.type != nil }
        guard let name = ClosestNames.closest(to: type, in: made.compactMap { $0.type?.name }).first,
              let entry = made.last(where: { $0.type?.name == name }) else { return nil }
        return (name, entry)
    }

    /// Whether `unserved` (the typed error of the last property nothing
    /// served that the prelude raised on this thread, see
    /// `BMModule.takeUnserved`) is `row`'s own: no initializer for its type,
    /// for this class and property. Read by its type, not by the text of
    /// the error the read raised (which a script could write too).
    static func isMissingInitializer(_ unserved: SpellError?, for row: ScriptCheckRun.SpellRow) -> Bool {
        guard case .noInitializer(let property, let container, let type, _)? = unserved else { return false }
        return type == row.key.name && property == row.property && container == row.class
    }

    /// The dry run `bmlua check` makes of the Lua classes, in `wiring`'s
    /// state: a fresh instance of each class, each of its injected
    /// properties read, one protected call each (with the state's budget).
    private func luaClassFailures(of wiring: HostWiring) -> [LuaError] {
        guard let prelude = wiring.module.preludeTable else { return [] }
        let classes = wiring.module.classes
        let rows: [ScriptCheckRun.SpellRow]
        do {
            rows = try wiring.state.withStack { (lua) throws -> [ScriptCheckRun.SpellRow] in
                try lua.call(lua.field("spell_report", of: prelude), results: 1)
                defer { lua.pop() }
                return try lua.decode([ScriptCheckRun.SpellRow].self, at: -1)
            }
        } catch {
            return [LuaError(.runtime, "cannot list the Lua classes' properties: \(error)")]
        }
        var failures: [LuaError] = []
        for name in classes.keys.sorted() {
            let source = classes[name]?.source ?? "?"
            let injected = rows.filter { $0.class == name && $0.isInjected }
            guard !injected.isEmpty else { continue }
            do throws(LuaError) {
                try wiring.state.withStack { (lua) throws(LuaError) in
                    try lua.call(lua.field("dry_new", of: prelude), name)
                }
            } catch {
                failures.append(error.chunk != nil
                    ? LuaError(error.kind, error.message + " (making a \(name))")
                    : LuaError(error.kind, "\(source): making a \(name): \(error.message)"))
                continue
            }
            for row in injected {
                _ = wiring.module.takeUnserved()
                do throws(LuaError) {
                    try wiring.state.withStack { (lua) throws(LuaError) in
                        try lua.call(lua.field("dry_read", of: prelude), name, row.property, results: 1)
                        lua.pop()
                    }
                } catch {
                    if error.chunk != nil {
                        failures.append(LuaError(error.kind, error.message + " (resolving \(name).\(row.property))"))
                    } else if Self.isMissingInitializer(wiring.module.takeUnserved(), for: row),
                              let (near, entry) = misspelledRegistration(of: row.key.name, module: wiring.module) {
                        failures.append(LuaError(
                            error.kind,
                            "\(entry.source): \(error.message) (closest: \(near), registered here; the property is declared at \(row.source))"))
                    } else {
                        failures.append(LuaError(error.kind, "\(row.source): \(error.message)"))
                    }
                    _ = try? wiring.state.withStack { (lua) throws(LuaError) in
                        try lua.call(lua.field("dry_settle", of: prelude), results: 0)
                    }
                }
            }
        }
        return failures
    }
}
