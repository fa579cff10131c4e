import Foundation

/// The dry run: a fresh instance of each Lua class with each of its
/// injected properties read, then every other Lua initializer called once
/// with the sender it would get. Each step is a top-level call with its own
/// instruction budget, so a step that never ends is one finding and the run
/// goes on.
extension ScriptCheckRun {
    func dryRun(_ report: [SpellRow]) throws {
        guard let prelude = module.preludeTable else { return }
        var exercised: Set<SpellHandle> = []
        let rows = Dictionary(grouping: report, by: \.class)
        let classes = host.luaClasses
        for name in classes.keys.sorted() {
            let source = classes[name]?.source
            do {
                try call(prelude, "dry_new", results: 0, push: { lua in lua.push(name); return 1 }, read: { _ in () })
            } catch let error as LuaError {
                let chain = settle(prelude)
                failure(error, chain: chain, context: "making a \(name)", fallback: source)
                continue
            }
            let injected = (rows[name] ?? []).filter(\.isInjected)
            var outcomes: [ReadOutcome]
            do {
                outcomes = try readAll(name, injected.map(\.property), prelude)
            } catch {
                // A read used up the budget of the whole call: one call each.
                _ = settle(prelude)
                outcomes = injected.map { readOne(name, $0.property, prelude) }
            }
            for (row, outcome) in zip(injected, outcomes) {
                let entry = row.kind == "partial"
                    ? nil : registry.initializerEntry(for: row.key, in: module.container(named: name, object: nil))
                if let entry, module.madeRegistration(entry.handle) { exercised.insert(entry.handle) }
                // Positions are worked out only for a finding (they read the file).
                var initSource: String? { entry.map { fieldPosition("init", at: $0.source) } }
                if entry == nil { settleAwaitingRead(container: name, property: row.property, failure: outcome.error) }
                if let error = outcome.error {
                    failure(error, chain: outcome.chain, context: "reading \(name).\(row.property)", fallback: initSource ?? row.source)
                } else if outcome.isNil, !row.optional, row.kind != "partial", let entry, module.madeRegistration(entry.handle) {
                    add(.error,
                        "\(name).\(row.property): the initializer for \(row.key.name) registered at \(entry.source) returned nil, and the property is not optional (is a `return` missing?)",
                        at: initSource)
                }
            }
        }
        try probeOtherInitializers(skipping: exercised)
    }

    /// What reading one property in the dry run gave.
    private struct ReadOutcome {
        var error: LuaError?
        var isNil = false
        var chain: String?
    }

    /// Reads `properties` of the dry run's instance of `name` in one call.
    private func readAll(_ name: String, _ properties: [String], _ prelude: LuaReference) throws -> [ReadOutcome] {
        guard !properties.isEmpty else { return [] }
        let (errors, nils, chains) = try call(prelude, "dry_read_all", results: 3, push: { lua in
            lua.push(name)
            lua.push(properties)
            return 2
        }, read: { lua -> ([LuaValue], [LuaValue], [LuaValue]) in
            (try [LuaValue].read(from: lua, at: -3), try [LuaValue].read(from: lua, at: -2), try [LuaValue].read(from: lua, at: -1))
        })
        return properties.indices.map { i in
            var outcome = ReadOutcome()
            if i < errors.count, case .string(let message) = errors[i] {
                outcome.error = LuaError(.runtime, host.state.expandingChunkNames(message))
            }
            if i < nils.count, case .boolean(true) = nils[i] { outcome.isNil = true }
            if i < chains.count, case .string(let chain) = chains[i] { outcome.chain = chain }
            return outcome
        }
    }

    /// Reads one property in a call of its own (its own budget; an error
    /// comes with the position and traceback the host gives it).
    private func readOne(_ name: String, _ property: String, _ prelude: LuaReference) -> ReadOutcome {
        do {
            let isNil = try call(prelude, "dry_read", results: 1, push: { lua in
                lua.push(name)
                lua.push(property)
                return 2
            }, read: { lua in lua.isNil(at: -1) })
            return ReadOutcome(isNil: isNil)
        } catch let error as LuaError {
            return ReadOutcome(error: error, chain: settle(prelude))
        } catch {
            return ReadOutcome(error: LuaError(.runtime, "\(error)"))
        }
    }

    /// Clears what a failed step left on the resolution stack; the chain it
    /// held when its steps repeated.
    private func settle(_ prelude: LuaReference) -> String? {
        (try? call(prelude, "dry_settle", results: 1) { lua in lua.rawString(at: -1) }) ?? nil
    }

    /// Reports a dry-run step's error at its position (else `fallback`).
    /// Errors reported otherwise are left out: a property nothing serves,
    /// a missing template, and what stands for the app's Swift initializers.
    private func failure(_ error: LuaError, chain: String?, context: String, fallback: String?) {
        let reason = error.reason
        if reason.contains(Self.swiftPlaceholderMarker) { return }
        // An initializer that waits (coroutine.yield) runs here outside a
        // coroutine: what it waits for is its caller's to give, which the
        // dry run cannot. Not a finding (a yield where no wait is possible,
        // under a Swift call, is still one: its message differs).
        if reason.contains("attempt to yield from outside a coroutine") { return }
        if let chunk = error.chunk, filesWithSyntaxErrors.contains(chunk) { return }   // reported as such
        if reason.range(of: #"^[A-Za-z_][\w.]*\.\w+: no (initializer|template) for "#, options: .regularExpression) != nil { return }
        // A property served by an initializer that takes arguments: reported by the static check.
        if reason.contains("takes arguments (") && reason.contains("but it was resolved with none") { return }
        if let range = reason.range(of: "dependency cycle: ") {
            let chain = reason[range.upperBound...].prefix { $0 != "(" && $0 != "\n" }
            if isNewCycle(String(chain)) { add(error, fallback: fallback) }
            return
        }
        if reason.contains("stack overflow"), let chain {
            guard isNewCycle(chain) else { return }
            let message = "dependency cycle: \(chain) (each step creates a new object, so it never ends: \(reason))"
            if let chunk = error.chunk, let line = error.line {
                add(.error, message, file: chunk, line: line)
            } else {
                add(.error, message, at: fallback)
            }
            return
        }
        if manifest == nil, let name = Self.missingGlobal(in: reason), closestGlobal(to: name) == nil {
            // Without the manifest, a global nothing comes close to may be
            // one the app sets (an exposed Swift class): not a finding.
            uncheckedNames.insert(name)
            return
        }
        add(error, fallback: fallback, suffix: " (dry run: \(context))" + globalHint(reason))
    }

    /// The name in `(global 'X')` of an error about a missing global.
    static func missingGlobal(in reason: String) -> String? {
        guard let match = reason.range(of: #"\(global '[^']+'\)"#, options: .regularExpression) else { return nil }
        return String(reason[match].dropFirst("(global '".count).dropLast(2))
    }

    /// The global closest to `name`, if one comes close.
    private func closestGlobal(to name: String) -> String? {
        closestName(to: name, in: (try? globalNames()) ?? [])
    }

    /// Whether the cycle `chain` (`A.b -> B.a -> A.b`) was not reported yet,
    /// from any of its steps; records it.
    private func isNewCycle(_ chain: String) -> Bool {
        var steps = chain.components(separatedBy: " -> ").map { $0.trimmingCharacters(in: .whitespaces) }
        if steps.count > 1, steps.first == steps.last { steps.removeLast() }
        guard let smallest = steps.indices.min(by: { steps[$0] < steps[$1] }) else { return true }
        let canonical = Array(steps[smallest...] + steps[..<smallest])
        return reportedCycles.insert(canonical).inserted
    }

    /// For a missing global: the closest global, or how to tell the check
    /// about the app's globals.
    private func globalHint(_ reason: String) -> String {
        guard let name = Self.missingGlobal(in: reason) else { return "" }
        if let near = closestGlobal(to: name) { return "; closest global: \(near)" }
        return manifest == nil ? "; if the app defines '\(name)', give check the app's manifest" : ""
    }

    /// The globals' names, read once per run (for hints only: one read per
    /// finding grew with findings times globals).
    private func globalNames() throws -> [String] {
        if let knownGlobalNames { return knownGlobalNames }
        guard let support else { return [] }
        let names = try call(support, "global_names", results: 1) { lua in try lua.decode([String].self, at: -1) }
        knownGlobalNames = names
        return names
    }

    // MARK: - Initializers no class property ran

    /// Calls each Lua initializer the class reads did not run, with the
    /// sender it would get, and checks its value against the Swift
    /// properties it serves.
    private func probeOtherInitializers(skipping exercised: Set<SpellHandle>) throws {
        let functions = module.luaInitializers
        for entry in scriptEntries([.initializer, .singleton]) where !exercised.contains(entry.handle) {
            guard let function = functions[entry.handle.id], let type = entry.type else { continue }
            let containerName = entry.container.key?.name
            let served = swiftProperties(servedBy: type, in: containerName)
            // An async initializer gets no sender (see registerAsyncInitializer).
            let takesSender = !entry.isAsync && host.state.withStack { lua -> Bool in
                lua.push(function)
                defer { lua.pop() }
                return lua.takesArguments(at: -1)
            }
            enum Sender { case none, luaObject(String), swift(String) }
            var sender = Sender.none
            if takesSender {
                if let containerName, host.luaClasses[containerName] != nil {
                    sender = .luaObject(containerName)
                } else if let containerName, manifestContainers[containerName] != nil {
                    sender = .swift(containerName)
                } else if let first = served.first {
                    sender = .swift(first.container)
                } else {
                    continue   // who the sender is cannot be known
                }
            }
            var initSource: String { fieldPosition("init", at: entry.source) }
            let context = "the initializer for \(type.name)" + (containerName.map { " in \($0)" } ?? "")
            collectBetweenSteps()
            let outcome: (kind: String, standin: String?)
            do {
                outcome = try host.state.withStack { (lua) throws -> (String, String?) in
                    let top = lua.top
                    defer { lua.setTop(top) }
                    lua.push(function)
                    var count: Int32 = 0
                    switch sender {
                    case .none:
                        break
                    case .luaObject(let name):
                        guard let prelude = module.preludeTable else { break }
                        try pushResult(of: prelude, "dry_object", argument: name, lua)
                        count = 1
                    case .swift(let name):
                        guard let support else { break }
                        try pushResult(of: support, "sender", argument: name, lua)
                        count = 1
                    }
                    try lua.call(arguments: count, results: 1)
                    guard let support else { return ("nil", nil) }
                    lua.pushRawField("result", of: support)
                    lua.insertTop(at: -2)    // result fn, value
                    try lua.call(arguments: 1, results: 2)
                    return (lua.rawString(at: -2) ?? "nil", lua.rawString(at: -1))
                }
            } catch let error as LuaError {
                failure(error, chain: nil, context: context, fallback: initSource)
                continue
            }
            for property in served {
                if let problem = mismatch(outcome.kind, outcome.standin, for: property.property) {
                    add(.error,
                        "\(property.container).\(property.property.name): the initializer for \(type.name) registered at \(entry.source) \(problem)",
                        at: initSource)
                    break
                }
            }
        }
    }

    /// Pushes `table[name](argument)`'s result (a top-level-safe nested call).
    private func pushResult(of table: LuaReference, _ name: String, argument: String, _ lua: LuaStack) throws {
        lua.pushRawField(name, of: table)
        lua.push(argument)
        try lua.call(arguments: 1, results: 1)
    }

    /// The manifest's Swift properties an initializer for `type` in
    /// `container` (nil: any) serves.
    private func swiftProperties(servedBy type: SpellTypeKey, in container: String?)
        -> [(container: String, property: AppManifest.ContainerProperty)]
    {
        (manifestInjectedByType[type] ?? []).filter { container == nil || $0.container == container }
    }

    private static let integerTypes: Set<String> = [
        "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
    ]
    private static let floatTypes: Set<String> = ["Double", "Float", "CGFloat"]

    /// Why a value of `kind` (a stand-in of `standin`) cannot serve
    /// `property`, or nil when it can (or the check cannot tell).
    func mismatch(_ kind: String, _ standin: String?, for property: AppManifest.ContainerProperty) -> String? {
        if kind == "nil" {
            return property.optional ? nil : "returned nil, and the property is not optional (is a `return` missing?)"
        }
        let returned = standin ?? "a \(kind)"
        if let protocols = property.protocols {
            let shown = protocols.joined(separator: " & ")
            guard let standin else { return "returned \(returned), which is not an exposed Swift object conforming to \(shown)" }
            let conforms = Set(manifestTypes[standin]?.protocols ?? [])
            let missing = protocols.filter { !conforms.contains($0) }
            return missing.isEmpty ? nil : "returned \(standin), which does not conform to \(missing.joined(separator: " & ")) (declare it with .conforms(to:))"
        }
        guard let type = property.type else { return nil }
        if manifestTypes[type] != nil {
            return standin == type ? nil : "returned \(returned), which is not a \(type)"
                + (standin == nil ? " (make one with \(type).new(...))" : "")
        }
        if standin != nil { return "returned \(returned), which is not a \(type)" }
        switch type {
        case "String", "Substring": return kind == "string" ? nil : "returned \(returned), which is not a \(type)"
        case "Bool": return kind == "boolean" ? nil : "returned \(returned), which is not a Bool"
        case _ where Self.integerTypes.contains(type) || Self.floatTypes.contains(type):
            return kind == "integer" || kind == "number" ? nil : "returned \(returned), which is not a \(type)"
        default:
            return nil
        }
    }
}
