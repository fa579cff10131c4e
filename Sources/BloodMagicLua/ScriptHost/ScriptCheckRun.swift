import Foundation

/// One run of ``ScriptChecker``: the inspection host, what the run found,
/// and the steps, in order (``run()``). The wiring checks and the dry run
/// live in their own files.
final class ScriptCheckRun {
    let host: ScriptHost
    let manifest: AppManifest?
    let files: [String]
    let directory: String?
    private(set) var problems: [ScriptProblem] = []
    /// Names used that nothing defined comes close to, when there is no
    /// manifest: probably the app's (ScriptCheckReport.uncheckedNames).
    var uncheckedNames: Set<String> = []
    /// The `[bm check]` support table.
    var support: LuaReference?
    /// Types the app's Swift template providers serve (`nil` key: every type).
    var swiftTemplateTypes: Set<String> = []
    var swiftTemplatesForEveryType = false
    /// Files whose syntax error is reported already.
    var filesWithSyntaxErrors: Set<String> = []
    /// A property no initializer serves, and its finding, waiting for the
    /// resolvers' answer (see `ScriptCheckRun+Resolvers.swift`).
    struct AwaitingResolvers {
        var property: UnservedProperty
        var message: String
        var source: String?
    }

    /// The properties waiting for the resolvers' answer, in the order found;
    /// a Lua class's by `Class.property` in ``awaitingLuaRead`` too, which the
    /// dry run's reads settle (each in constant time).
    var awaitingResolvers: [AwaitingResolvers?] = []
    var awaitingLuaRead: [String: Int] = [:]
    /// `type|container` of each ``containerTypos`` entry with a closest name.
    var typoTargets: Set<String> = []
    /// Name comparisons left for "closest" suggestions in this run: each
    /// costs one comparison per candidate, so a run with many unknown names
    /// and many candidates stops suggesting rather than growing with their
    /// product.
    var closestNameBudget = 20_000_000
    /// The globals' names, once read for a hint.
    var knownGlobalNames: [String]?
    /// The heap's size after the last collection ``collectBetweenSteps()`` made.
    var collectedAtKilobytes = 0
    /// The Lua errors reported already, as `file:line: reason`.
    var reportedErrors: Set<String> = []
    /// Dependency cycles reported already, each from its smallest step (a
    /// cycle found from each of its classes is one cycle).
    var reportedCycles: Set<[String]> = []
    /// Script initializers whose container nobody declares (see
    /// ``undeclaredContainers(_:)``), found before the properties are checked.
    var containerTypos: [ContainerTypo] = []
    /// The manifest's containers and exposed types by name (the first of a
    /// name, as ``AppManifest/container(named:)`` finds it), and its lazy
    /// and injectable properties by type: looked up once per registration
    /// or finding, never by scanning the manifest each time.
    lazy var manifestContainers: [String: AppManifest.Container] =
        Dictionary((manifest?.containers ?? []).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    lazy var manifestTypes: [String: AppManifest.ExposedType] =
        Dictionary((manifest?.types ?? []).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    lazy var manifestInjectedByType: [SpellTypeKey: [(container: String, property: AppManifest.ContainerProperty)]] = {
        var byType: [SpellTypeKey: [(container: String, property: AppManifest.ContainerProperty)]] = [:]
        for container in manifest?.containers ?? [] {
            for property in container.properties where [.lazy, .injectable, .provider, .resolved].contains(property.spell) {
                byType[property.typeKey, default: []].append((container.name, property))
            }
        }
        return byType
    }()
    /// The registrations the scripts made (read once they are loaded).
    lazy var scriptRegistrations: [SpellEntry] = registry.entries.filter { module.madeRegistration($0.handle) }

    /// Marks errors of the placeholders that stand for the app's Swift
    /// initializers, which the check cannot run.
    static let swiftPlaceholderMarker = "(served by the app's Swift code, which the check does not run)"

    /// What a script's (synchronous) read of an `async` Swift registration
    /// is, in the dry run.
    static func asyncReadMessage(_ type: String, _ source: String) -> String {
        "\(type) is registered in Swift with an async initializer at \(source): a script reads it synchronously, "
            + "which fails until it is made (call `try await registry.prepare()` before the scripts read it)"
    }

    init(host: ScriptHost, manifest: AppManifest?, files: [String], directory: String?) {
        self.host = host
        self.manifest = manifest
        self.files = files
        self.directory = directory
    }

    var module: BMModule { host.module }
    var registry: Registry { host.registry }

    func run() throws -> ScriptCheckReport {
        try installSupport()
        if let manifest { try installApp(manifest) }
        loadScripts()
        compileOtherFiles()
        reportDiagnostics()
        let report = try spellReport()
        let containers = knownContainers(report)
        containerTypos = undeclaredContainers(containers)
        typoTargets = Set(containerTypos.compactMap { typo in typo.closest.map { "\(typo.type.name)|\($0)" } })
        checkHooksAndPreferences(containers)
        checkPreferenceDefaults()
        checkLuaProperties(report)
        checkSwiftContainers()
        checkFactoryArguments()
        checkArgumentClasses()
        checkInitializerContainers(containers)
        checkClassDeclarations()
        try dryRun(report)
        askResolvers()
        dryRunReloadCallbacks()
        var seen: Set<String> = []
        let sorted = problems
            .filter { seen.insert($0.description).inserted }
            .sorted { ($0.file, $0.line, $0.severity.rawValue, $0.message) < ($1.file, $1.line, $1.severity.rawValue, $1.message) }
        return ScriptCheckReport(problems: sorted, uncheckedNames: manifest == nil ? uncheckedNames.sorted() : [])
    }

    // MARK: - Recording problems

    func add(_ severity: ScriptProblem.Severity, _ message: String, file: String, line: Int) {
        problems.append(ScriptProblem(file: file, line: line, severity: severity, message: message))
    }

    /// A problem at `source` (`file:line`), moved to the line of `field` of
    /// the definition table written there when given.
    func add(_ severity: ScriptProblem.Severity, _ message: String, at source: String?, field: String? = nil) {
        guard let source, let (file, line) = LuaError.parseLocation(source + ":") else {
            add(severity, message, file: source ?? "?", line: 0)
            return
        }
        let shown = field.map { fieldLine($0, file: file, line: line) } ?? line
        add(severity, message, file: file, line: shown)
    }

    /// The line of field `key` in the call at `file:line`, found in the text
    /// the host state loaded as `@file` (never by reading the file again).
    func fieldLine(_ key: String, file: String, line: Int) -> Int {
        host.state.withStack { $0.line(ofField: key, chunk: "@" + file, line: line) }
    }

    /// `"file:line"` moved to the line of field `key` of the call there.
    func fieldPosition(_ key: String, at source: String) -> String {
        host.state.withStack { $0.position(ofField: key, at: source) }
    }

    /// A Lua error as a problem at its own position, or at `fallback`.
    /// The same error at the same place is reported once: the first time
    /// (loading comes before the dry run, which may reach it again).
    func add(_ error: LuaError, fallback: String?, suffix: String = "") {
        func once(_ reason: String, file: String, line: Int) {
            guard reportedErrors.insert("\(file):\(line): \(reason)").inserted else { return }
            add(.error, reason + suffix, file: file, line: line)
        }
        if let (file, line, reason) = Self.moduleLoadingFailure(error.message) {
            filesWithSyntaxErrors.insert(file)
            once(reason, file: file, line: line)
        } else if let chunk = error.chunk, let line = error.line {
            if error.kind == .syntax { filesWithSyntaxErrors.insert(chunk) }
            once(error.reason + closestField(error.reason), file: chunk, line: line)
        } else {
            add(.error, error.message + suffix, at: fallback)
        }
    }

    /// For `bm.x: unknown field 'y'`, ` (closest: 'z')` with the definition's
    /// closest field, or the empty string.
    func closestField(_ reason: String) -> String {
        guard let match = reason.firstMatch(of: /^(bm\.[\w.]+): unknown field '([^']+)'$/),
              let prelude = module.preludeTable else { return "" }
        let near = try? call(prelude, "closest_field", results: 1, push: { lua in
            lua.push(String(match.1))
            lua.push(String(match.2))
            return 2
        }, read: { lua in lua.rawString(at: -1) })
        return (near ?? nil).map { " (closest: '\($0)')" } ?? ""
    }

    /// `require`'s "error loading module 'm' from file 'f':\n\tf:3: reason",
    /// as the position inside the module and `error loading module 'm': reason`.
    static func moduleLoadingFailure(_ message: String) -> (String, Int, String)? {
        guard let start = message.range(of: "error loading module '"),
              let nameEnd = message.range(of: "'", range: start.upperBound..<message.endIndex),
              let detail = message.range(of: "':\n\t", range: nameEnd.upperBound..<message.endIndex)
        else { return nil }
        let module = message[start.upperBound..<nameEnd.lowerBound]
        let inner = String(message[detail.upperBound...])
        let error = LuaError(.syntax, inner)
        guard let chunk = error.chunk, let line = error.line else { return nil }
        return (chunk, line, "error loading module '\(module)': \(error.reason)")
    }

    // MARK: - Setting up

    /// Loads `[bm check]` (`bm_check.lua`, embedded at build time) into the host.
    private func installSupport() throws {
        guard let prelude = module.preludeTable else { throw LuaError(.usage, "the bm module is not installed") }
        support = try host.state.withStack { (lua) throws -> LuaReference in
            try lua.load(script: PackageResources.bm_check_lua, name: "=[bm check]")
            lua.push(prelude)
            try lua.call(arguments: 1, results: 1)
            defer { lua.pop() }
            return lua.reference(at: -1)
        }
    }

    /// Stand-ins for the app's types and globals, and placeholders for its
    /// Swift registrations.
    private func installApp(_ manifest: AppManifest) throws {
        try callSupport("install", results: 0) { lua in
            try lua.push(encoding: manifest.types)
            try lua.push(encoding: manifest.globals)
            return 2
        }
        // An argument declared as an exposed class takes the class's stand-in.
        module.acceptStandIns(of: Set(manifest.types.map(\.name)))
        // The app's custom scopes, which the scripts may name.
        for name in manifest.scopes ?? [] {
            if let scope = SpellScope(rawValue: name) { registry.declareScope(scope) }
        }
        for registration in manifest.registrations {
            let container: ContainerMatch = registration.container.map {
                registration.includesSubclasses == true ? .kindOf(SpellTypeKey(name: $0)) : .exactly(SpellTypeKey(name: $0))
            } ?? .any
            switch registration.kind {
            case "initializer", "singleton":
                guard let key = registration.typeKey else { continue }
                let source = registration.source
                if let arguments = registration.arguments {
                    registry.registerInitializer(
                        type: key, name: registration.named, container: container, source: source, argumentNames: arguments
                    ) { _, _ in
                        throw LuaError(.usage, "\(key.name) at \(source) \(ScriptCheckRun.swiftPlaceholderMarker)")
                    }
                    continue
                }
                let isAsync = registration.async == true
                registry.registerInitializer(
                    type: key, name: registration.named, container: container,
                    scope: registration.kind == "singleton" ? .singleton : registration.scope.flatMap(SpellScope.init) ?? .instance,
                    source: source
                ) { _ in
                    // A script's read is synchronous: of an async
                    // registration, a finding (it fails until the value is made).
                    if isAsync { throw LuaError(.usage, Self.asyncReadMessage(key.name, source)) }
                    throw LuaError(.usage, "\(key.name) at \(source) \(ScriptCheckRun.swiftPlaceholderMarker)")
                }
            case "partial":
                if let key = registration.typeKey { swiftTemplateTypes.insert(key.name) } else { swiftTemplatesForEveryType = true }
            case "spell":
                // The app's named spell: scripts may use it as bm.spell.<name>
                // (its hooks, Swift code, do nothing here).
                if let name = registration.property {
                    registry.registerSpell(named: name, hooks: NamedSpellHooks(), source: registration.source)
                }
            case "resolver":
                // The app's resolver cannot run here: for what it may serve
                // (its type, when it names one), "cannot tell", as for the
                // app's initializers.
                let serves = registration.typeKey
                let source = registration.source
                _ = registry.addResolver(source: source, serving: serves) { request in
                    guard serves == nil || serves == request.type else { return .skip }
                    throw LuaError(.usage, "\(request.container.name).\(request.property) may be served by the resolver at \(source) \(ScriptCheckRun.swiftPlaceholderMarker)")
                }
            default:
                continue
            }
        }
    }

    // MARK: - Loading and compiling

    /// Loads the startup scripts, each failure with its file (in one call:
    /// loading them one call each copied the host's records of the files
    /// loaded before every time, quadratic in the number of files).
    private func loadScripts() {
        for (file, failure) in host.loadReportingFiles(files, afterEachFile: { [self] in collectBetweenSteps() }) {
            add(failure, fallback: "\(file):0")
        }
    }

    /// Compiles (without running) the other Lua files below the scripts
    /// directory — `partials/` templates and modules for `require` — so a
    /// syntax error there is found even if nothing loads the file yet.
    private func compileOtherFiles() {
        guard let directory else { return }
        let startup = Set(files.map { ($0 as NSString).standardizingPath })
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return }
        var others: [String] = []
        while let relative = walker.nextObject() as? String {
            if (relative as NSString).lastPathComponent.hasPrefix(".") {
                walker.skipDescendants()
                continue
            }
            guard relative.hasSuffix(".lua"), relative.contains("/") else { continue }
            let path = (directory as NSString).appendingPathComponent(relative)
            if !startup.contains((path as NSString).standardizingPath) { others.append(path) }
        }
        for path in others.sorted() where !filesWithSyntaxErrors.contains(path) {
            do throws(LuaError) {
                try host.state.withStack { (lua) throws(LuaError) in
                    try lua.loadFile(path)
                    lua.pop()
                }
            } catch {
                add(error, fallback: "\(path):0")
            }
        }
    }

    /// Each diagnostic at the newest registration it names. The entries are
    /// read and indexed once (not once per diagnostic: up to 1,000
    /// diagnostics times every registration), so this is linear in the
    /// registrations and the handles the diagnostics name.
    private func reportDiagnostics() {
        let diagnostics = registry.diagnostics
        guard !diagnostics.isEmpty else { return }
        let entries = registry.entries
        var position: [SpellHandle: Int] = [:]
        for (index, entry) in entries.enumerated() { position[entry.handle] = index }
        for diagnostic in diagnostics {
            let newest = diagnostic.handles.compactMap { position[$0] }.max().map { entries[$0] }
            add(.warning, diagnostic.message, at: newest?.source)
        }
    }

    // MARK: - Garbage between steps

    /// Collects garbage between two steps once the heap has grown by half
    /// since the last collection. Lua starts a collection cycle of its own
    /// only when the heap has doubled, inside whatever step is running, and
    /// a cycle's pause on a big heap (10,000 files: about 0.2 s) is charged
    /// to that step as work: a step that fits its budget would be reported
    /// over it. Collecting first keeps the pauses between steps; their cost
    /// adds up to a few full collections of the final heap (the sizes grow
    /// geometrically), linear in it. A step that alone allocates half the
    /// heap still collects inside itself, at its own cost.
    func collectBetweenSteps() {
        host.state.withStack { lua in
            let size = lua.heapKilobytes
            guard size >= max(collectedAtKilobytes + collectedAtKilobytes / 2, Self.smallestCollectedHeap) else { return }
            lua.collectGarbage()
            collectedAtKilobytes = lua.heapKilobytes
        }
    }

    /// Below this many kilobytes, Lua's own collections are short enough.
    static let smallestCollectedHeap = 4096

    // MARK: - Calling Lua

    /// Calls `table[name]` (a table of the prelude or of `[bm check]`) as a
    /// top-level run, with the arguments `push` pushes (it returns their
    /// count), and reads the results with `read`.
    func call<T>(
        _ table: LuaReference, _ name: String, results: Int32,
        push: (LuaStack) throws -> Int32 = { _ in 0 }, read: (LuaStack) throws -> T
    ) throws -> T {
        collectBetweenSteps()
        return try host.state.withStack { (lua) throws -> T in
            let top = lua.top
            defer { lua.setTop(top) }
            lua.pushRawField(name, of: table)
            let count = try push(lua)
            try lua.call(arguments: count, results: results)
            return try read(lua)
        }
    }

    func callSupport(_ name: String, results: Int32, push: (LuaStack) throws -> Int32 = { _ in 0 }) throws {
        guard let support else { return }
        try call(support, name, results: results, push: push) { _ in () }
    }

    func callPrelude<T: Decodable>(_ function: String, as type: T.Type) throws -> T {
        guard let prelude = module.preludeTable else { throw LuaError(.usage, "the bm module is not installed") }
        return try call(prelude, function, results: 1) { lua in try lua.decode(T.self, at: -1) }
    }
}
