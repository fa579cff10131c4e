import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One step of a resolution in progress: a property of one object.
///
/// Frames are plain values (no reference counting, nothing to destroy), so
/// pushing and popping one costs a few stores. Swift spells identify the
/// property by their cell and the container by its address; names are
/// computed only for error messages. Named steps (script bridges,
/// singletons) point at their names, which live in the caller's frame for
/// as long as the step is on the stack.
@usableFromInline
struct ResolutionFrame {
    @usableFromInline
    enum Kind: UInt8 {
        /// A spell cell of a Swift container.
        case cell
        /// A property known by names (`detail`).
        case named
        /// A Swift container type and a property name (`detail`).
        case typed
    }

    @usableFromInline let kind: Kind
    /// The object's address (identity only; never dereferenced for named frames).
    @usableFromInline let object: UnsafeMutableRawPointer?
    /// The cell's address, for cell frames.
    @usableFromInline let cell: UnsafeMutableRawPointer?
    /// The storage key path's address, for cell frames, if known.
    @usableFromInline let keyPath: UnsafeMutableRawPointer?
    /// The names, for other frames: a `ResolutionFrameDetail` owned by the
    /// caller that pushed the frame, alive until it pops it.
    @usableFromInline let detail: UnsafeRawPointer?

    @usableFromInline
    init(
        kind: Kind, object: UnsafeMutableRawPointer?, cell: UnsafeMutableRawPointer?, keyPath: UnsafeMutableRawPointer?,
        detail: UnsafeRawPointer?
    ) {
        self.kind = kind
        self.object = object
        self.cell = cell
        self.keyPath = keyPath
        self.detail = detail
    }
}

/// The names of a named or typed resolution step.
@usableFromInline
enum ResolutionFrameDetail {
    case named(container: String, property: String)
    case typed(containerType: Any.Type, property: String)

    var label: String {
        switch self {
        case let .named(container, property):
            return property.isEmpty ? container : "\(container).\(property)"
        case let .typed(containerType, property):
            return "\(SpellTypeKey(containerType).name).\(property)"
        }
    }

    func isSameStep(as other: ResolutionFrameDetail) -> Bool {
        switch (self, other) {
        case let (.named(c1, p1), .named(c2, p2)):
            return c1 == c2 && p1 == p2
        case let (.typed(t1, p1), .typed(t2, p2)):
            return t1 == t2 && p1 == p2
        default:
            return false
        }
    }
}

/// The stack of resolutions in progress on this thread, and the thread's
/// lookup cache.
///
/// Resolutions are synchronous (initializers are plain closures), so a
/// thread-local stack follows them exactly, also across nested resolutions
/// started by a script bridge through `Registry.trackResolution`. Only the
/// owning thread touches it, which is why its storage needs no lock.
@usableFromInline
final class ResolutionStack {
    /// The frames, `count` of them, in a buffer of `capacity`.
    @usableFromInline @exclusivity(unchecked) var frames: UnsafeMutablePointer<ResolutionFrame>
    @usableFromInline @exclusivity(unchecked) var count = 0
    @usableFromInline @exclusivity(unchecked) var capacity = 16
    /// A small direct-mapped cache of registry lookups made on this thread,
    /// checked against the registry's generation, so a warm lookup takes
    /// no lock.
    @usableFromInline let lookups: UnsafeMutablePointer<ThreadResolutionCacheEntry>
    @usableFromInline static let lookupSlots = 64
    /// The registry whose initializer runs on this thread now (unretained:
    /// whoever runs the initializer holds the registry), so that containers
    /// it creates resolve through it too (see `Registry.scopedRegistry`).
    @usableFromInline @exclusivity(unchecked) var resolvingRegistry: Unmanaged<Registry>?
    /// How many `whileResolving` calls are in progress on this thread: 0
    /// outside any resolution, 1 inside a top-level one's initializer (see
    /// `GraphScopeKey.value`, which keeps nothing for a value that is a
    /// whole top-level resolution's).
    @usableFromInline @exclusivity(unchecked) var depth = 0
    /// A reload's preview of a registry that resolutions on this thread
    /// see instead of the registry's own registrations (Registry+Preview).
    var preview: RegistryPreview?
    /// How many graph-scoped values the thread's top-level resolution has
    /// made so far (kept in `graphValues`, see GraphScope.swift): while 0,
    /// the end of a top-level resolution has nothing to forget.
    @usableFromInline @exclusivity(unchecked) var graphCount = 0
    /// The graph-scoped values made during the top-level resolution, by
    /// their registration's key (the first, when it is an object, in
    /// `graphFirstKey` and `graphFirstObject`, the others in `graphValues`);
    /// forgotten when it ends (`endGraph`, with `graphSpare` and
    /// `endingGraph`). Only the owning thread touches them.
    @usableFromInline @exclusivity(unchecked) var graphFirstKey: GraphScopeKey?
    @usableFromInline @exclusivity(unchecked) var graphFirstObject: AnyObject?
    @exclusivity(unchecked) var graphValues: [(key: GraphScopeKey, value: Any)] = []
    @exclusivity(unchecked) var graphSpare: [(key: GraphScopeKey, value: Any)] = []
    @exclusivity(unchecked) var endingGraph = false

    init() {
        frames = .allocate(capacity: capacity)
        lookups = .allocate(capacity: ResolutionStack.lookupSlots)
        lookups.initialize(repeating: ThreadResolutionCacheEntry(), count: ResolutionStack.lookupSlots)
    }

    deinit {
        frames.deallocate()
        lookups.deinitialize(count: ResolutionStack.lookupSlots)
        lookups.deallocate()
    }

    /// The current thread's stack, created on first use and released with the thread.
    static var current: ResolutionStack {
        Unmanaged<ResolutionStack>.fromOpaque(currentPointer).takeUnretainedValue()
    }

    /// The current thread's stack as a raw pointer (no reference counting).
    ///
    /// Inlinable, forwarding to a free function: a call of the static
    /// property itself from another module first asks the runtime for this
    /// class's metadata (its `self`), on every resolution.
    @inlinable
    static var currentPointer: UnsafeMutableRawPointer { currentResolutionStackPointer() }

    /// The calling thread's stack as a raw pointer, or nil when the thread
    /// has none yet (nothing is created).
    static var existingPointer: UnsafeMutableRawPointer? { pthread_getspecific(resolutionStackKey) }

    /// The registry whose initializer runs on the calling thread, if any
    /// (without creating the thread's stack when it has none).
    static var resolvingRegistryOnThisThread: Registry? {
        guard let raw = pthread_getspecific(resolutionStackKey) else { return nil }
        return Unmanaged<ResolutionStack>.fromOpaque(raw)._withUnsafeGuaranteedRef {
            $0.resolvingRegistry?.takeUnretainedValue()
        }
    }

    /// Runs `body` with `registry` as the thread's resolving registry.
    @inlinable
    static func whileResolving<Result>(
        _ registry: Registry, on stack: UnsafeMutableRawPointer, _ body: () throws -> Result
    ) rethrows -> Result {
        let previous = borrow(stack) { stack -> Unmanaged<Registry>? in
            let previous = stack.resolvingRegistry
            stack.resolvingRegistry = Unmanaged.passUnretained(registry)
            stack.depth &+= 1
            return previous
        }
        defer {
            borrow(stack) { stack in
                stack.resolvingRegistry = previous
                stack.depth &-= 1
                // The end of a top-level resolution: its graph-scoped values go
                // (the count is 0 unless a resolution keeps graph-scoped values).
                if _slowPath(stack.graphCount != 0) && previous == nil { stack.endGraph() }
            }
        }
        return try body()
    }

    /// The stack behind a pointer from `currentPointer`, borrowed: the
    /// thread owns it until it exits, so no retain is needed for the length
    /// of a call on that thread.
    @usableFromInline
    static func borrow<Result>(_ pointer: UnsafeMutableRawPointer, _ body: (ResolutionStack) throws -> Result) rethrows -> Result {
        try Unmanaged<ResolutionStack>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    /// Pushes a spell cell's step, or throws the cycle error if the same
    /// cell of the same object is already being resolved on this thread.
    @inlinable
    func pushCell(object: AnyObject, cell: AnyObject, keyPath: AnyKeyPath?) throws {
        let frame = ResolutionFrame(
            kind: .cell, object: Unmanaged.passUnretained(object).toOpaque(), cell: Unmanaged.passUnretained(cell).toOpaque(),
            keyPath: keyPath.map { Unmanaged.passUnretained($0).toOpaque() }, detail: nil
        )
        if count == 0 {
            // The common case, an outermost resolution: nothing to scan.
            frames.initialize(to: frame)
            count = 1
            return
        }
        try pushCellScanning(frame)
    }

    /// `pushCell` with resolutions already in progress: scans for a cycle.
    @usableFromInline
    func pushCellScanning(_ frame: ResolutionFrame) throws {
        for index in 0..<count where frames[index].kind == .cell && frames[index].cell == frame.cell && frames[index].object == frame.object {
            throw cycleError(from: index, closingWith: frame)
        }
        try checkDepth(adding: frame)
        append(frame)
    }

    /// Pushes a named or typed step, or throws the cycle error.
    /// `detail` must stay valid until the matching `pop`.
    @usableFromInline
    func pushDetail(_ detail: UnsafePointer<ResolutionFrameDetail>, kind: ResolutionFrame.Kind, object: AnyObject?) throws {
        let address = object.map { Unmanaged.passUnretained($0).toOpaque() }
        let frame = ResolutionFrame(kind: kind, object: address, cell: nil, keyPath: nil, detail: UnsafeRawPointer(detail))
        for index in 0..<count where frames[index].kind == kind && frames[index].object == address
            && ResolutionStack.detail(of: frames[index]).isSameStep(as: detail.pointee) {
            throw cycleError(from: index, closingWith: frame)
        }
        if count > 0 { try checkDepth(adding: frame) }
        append(frame)
    }

    /// How many steps may nest on one thread (as Swinject's 200).
    static let maxDepth = 200

    /// The lowest stack address this thread may reach before a nested step
    /// is refused (0 until the first nested step computes it).
    private var stackFloor: UInt = 0

    /// Throws when one more nested step would go past `maxDepth`, or when
    /// the thread's stack is nearly used up: the chain so far is the error.
    ///
    /// A resolution may re-enter its own initializers, through new objects
    /// (a tree whose initializer stops at some depth); what re-enters the
    /// same steps without end reaches this backstop, which reports it as a
    /// dependency cycle showing one round of the repetition.
    @usableFromInline
    func checkDepth(adding frame: ResolutionFrame) throws {
        if stackFloor == 0 { stackFloor = ResolutionStack.currentStackFloor() }
        var marker: UInt8 = 0
        let here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        guard count >= ResolutionStack.maxDepth || here < stackFloor else { return }
        var chain = labels
        chain.append(label(of: frame))
        throw ResolutionStack.runawayError(chain: chain, limit: ResolutionStack.maxDepth)
    }

    /// The error for a chain that reached the backstop: a dependency cycle
    /// (one round of the repetition, closed) when its innermost steps keep
    /// repeating, else "too deep" with the chain.
    static func runawayError(chain: [String], limit: Int) -> SpellError {
        if let cycle = repeatingCycle(in: chain) { return .dependencyCycle(chain: cycle) }
        return .resolutionTooDeep(chain: chain, limit: limit)
    }

    /// The repetition that `chain` ends with, as one round closed by its
    /// first step (`[A.next, B.next, A.next]`), when the same `p` steps
    /// come back at least three times in a row; nil otherwise. The round
    /// starts where the repetition starts, so a chain that repeats from its
    /// outermost step is shown from there.
    static func repeatingCycle(in chain: [String]) -> [String]? {
        let count = chain.count
        guard count >= 3 else { return nil }
        for period in 1...(count / 3) {
            // How far back from the end the chain repeats with this period.
            var run = 0
            while run + period < count && chain[count - 1 - run] == chain[count - 1 - run - period] {
                run += 1
            }
            guard run >= 2 * period else { continue }
            let start = count - run - period
            return Array(chain[start..<(start + period)]) + [chain[start]]
        }
        return nil
    }

    /// The lowest address the calling thread's stack may use for nested
    /// resolutions: its stack's low end plus a reserve for what runs between
    /// two steps (a quarter of the stack, within 64 KiB to 256 KiB). 1 when
    /// the bounds are unknown (no check).
    static func currentStackFloor() -> UInt {
        var low: UInt = 0
        var size: UInt = 0
        #if canImport(Darwin)
        let thread = pthread_self()
        size = UInt(pthread_get_stacksize_np(thread))
        low = UInt(bitPattern: pthread_get_stackaddr_np(thread)) &- size
        #elseif canImport(Glibc) || canImport(Musl)
        // A GNU extension the Glibc module does not export: found at run time.
        typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np") else { return 1 }
        let getAttributes = unsafeBitCast(symbol, to: GetAttributes.self)
        var attributes = pthread_attr_t()
        if getAttributes(pthread_self(), &attributes) == 0 {
            var address: UnsafeMutableRawPointer?
            var length = 0
            if pthread_attr_getstack(&attributes, &address, &length) == 0 {
                low = UInt(bitPattern: address)
                size = UInt(length)
            }
            pthread_attr_destroy(&attributes)
        }
        #endif
        guard low != 0, size != 0 else { return 1 }
        let reserve = min(max(size / 4, 64 << 10), 256 << 10)
        return low + reserve
    }

    /// The names a named or typed frame points at.
    static func detail(of frame: ResolutionFrame) -> ResolutionFrameDetail {
        frame.detail.unsafelyUnwrapped.assumingMemoryBound(to: ResolutionFrameDetail.self).pointee
    }

    /// Pops the innermost step.
    @inlinable
    func pop() {
        count -= 1
    }

    @usableFromInline
    func append(_ frame: ResolutionFrame) {
        if count == capacity {
            let grown = UnsafeMutablePointer<ResolutionFrame>.allocate(capacity: capacity * 2)
            grown.moveInitialize(from: frames, count: count)
            frames.deallocate()
            frames = grown
            capacity *= 2
        }
        (frames + count).initialize(to: frame)
        count += 1
    }

    private func cycleError(from start: Int, closingWith frame: ResolutionFrame) -> SpellError {
        let chain = (start..<count).map { label(of: frames[$0]) } + [label(of: frame)]
        return SpellError.dependencyCycle(chain: chain)
    }

    /// "ViewController.loader" for a frame (frames are only labelled while
    /// their resolution runs, so the objects they point at are alive).
    func label(of frame: ResolutionFrame) -> String {
        switch frame.kind {
        case .cell:
            guard let objectAddress = frame.object, let cellAddress = frame.cell else { return "?" }
            let object = Unmanaged<AnyObject>.fromOpaque(objectAddress).takeUnretainedValue()
            let keyPath = frame.keyPath.map { Unmanaged<AnyKeyPath>.fromOpaque($0).takeUnretainedValue() }
            let name = (Unmanaged<AnyObject>.fromOpaque(cellAddress).takeUnretainedValue() as? any SpellCellNaming)?
                .propertyName(keyPath, in: object) ?? "?"
            return "\(SpellNames.containerName(of: object)).\(name)"
        case .named, .typed:
            return ResolutionStack.detail(of: frame).label
        }
    }

    /// The labels of the frames, outermost first.
    var labels: [String] {
        (0..<count).map { label(of: frames[$0]) }
    }
}

#if canImport(Darwin)
private func releaseResolutionStack(_ raw: UnsafeMutableRawPointer) {
    Unmanaged<ResolutionStack>.fromOpaque(raw).release()
}
#else
private func releaseResolutionStack(_ raw: UnsafeMutableRawPointer?) {
    if let raw { Unmanaged<ResolutionStack>.fromOpaque(raw).release() }
}
#endif

/// The current thread's stack as a raw pointer (``ResolutionStack/currentPointer``),
/// created on the thread's first resolution.
///
/// The key is read from `resolutionStackKeyWord`, a global made at load
/// time: `resolutionStackKey`, made on first use, costs a `swift_once`
/// call on every read.
@usableFromInline
func currentResolutionStackPointer() -> UnsafeMutableRawPointer {
    let word = resolutionStackKeyWord.load(ordering: .acquiring)
    if word != 0, let raw = pthread_getspecific(pthread_key_t(truncatingIfNeeded: word &- 1)) { return raw }
    return makeResolutionStack()
}

/// The calling thread's stack when it has one, else a new one, kept as its
/// thread-local value (out of line: once per thread, and on a thread that
/// has not seen the key published yet).
@inline(never)
private func makeResolutionStack() -> UnsafeMutableRawPointer {
    let key = resolutionStackKey
    resolutionStackKeyWord.store(UInt(key) &+ 1, ordering: .releasing)
    if let raw = pthread_getspecific(key) { return raw }
    let raw = Unmanaged.passRetained(ResolutionStack()).toOpaque()
    pthread_setspecific(key, raw)
    return raw
}

/// `resolutionStackKey` plus one, once it is made (0 before): statically
/// initialized, so that reading it needs no `swift_once`.
private let resolutionStackKeyWord = Atomic<UInt>(0)

/// The thread-local key of the resolution stack.
private let resolutionStackKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, releaseResolutionStack)
    return key
}()

extension Registry {
    /// Runs one resolution step (`container.property` of `object`) inside the
    /// cycle tracker. If the same property of the same object is already
    /// being resolved on this thread, throws `SpellError.dependencyCycle`
    /// listing the chain instead of recursing into a stack overflow.
    ///
    /// Every spell uses this; a script bridge resolving its own classes'
    /// properties calls it too, so cycles are found across both worlds.
    public static func trackResolution<Result>(
        container: String,
        property: String,
        object: AnyObject?,
        _ body: () throws -> Result
    ) throws -> Result {
        try track(
            ResolutionFrameDetail.named(container: container, property: property), kind: .named, object: object,
            on: ResolutionStack.currentPointer, body)
    }

    /// Tracks a resolution of a named property of a Swift object.
    ///
    /// Inlinable, so that `body` is inlined into the caller's specialized
    /// code (`resolve(_:for:property:)` and its named and argument forms)
    /// instead of going through a closure context and reabstraction thunks,
    /// which LLVM's function merging had made shared between the plain and
    /// the named resolution.
    @inlinable
    static func trackTypedResolution<Result>(
        object: AnyObject, property: String, on stackPointer: UnsafeMutableRawPointer, _ body: () throws -> Result
    ) throws -> Result {
        try track(
            ResolutionFrameDetail.typed(containerType: type(of: object), property: property), kind: .typed, object: object,
            on: stackPointer, body)
    }

    /// Runs `body` with a frame for `detail` on the tracker at `stackPointer`;
    /// the frame points at `detail`, which lives on this call's stack.
    @inlinable @inline(__always)
    static func track<Result>(
        _ detail: ResolutionFrameDetail, kind: ResolutionFrame.Kind, object: AnyObject?,
        on stackPointer: UnsafeMutableRawPointer, _ body: () throws -> Result
    ) throws -> Result {
        try withUnsafePointer(to: detail) { detail in
            try ResolutionStack.borrow(stackPointer) { stack in
                try stack.pushDetail(detail, kind: kind, object: object)
                defer { stack.pop() }
                return try body()
            }
        }
    }

    /// The labels of the resolutions in progress on this thread, outermost
    /// first ("ViewController.loader"), for diagnostics.
    public static var resolutionsInProgress: [String] {
        ResolutionStack.current.labels
    }
}

/// Lets other threads run (used while waiting for another thread to
/// publish a value it is producing).
@usableFromInline
func yieldThread() {
    sched_yield()
}
