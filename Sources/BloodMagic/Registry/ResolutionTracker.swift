#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One step of a resolution in progress: a property of one object.
///
/// Swift spells identify the property by its storage key path and the
/// container by its metatype; names are only computed for error messages,
/// so tracking costs no string work on the hot path.
struct ResolutionFrame {
    enum Site {
        /// A property known by names (script bridges, singletons).
        case named(container: String, property: String)
        /// A spell cell of a Swift container (the name is found only for messages).
        ///
        /// Unretained on purpose (no reference counting on the hot path):
        /// a frame only lives while its resolution runs, and the caller
        /// holds the container, the cell and the key path for that long.
        case cell(container: Unmanaged<AnyObject>, cell: Unmanaged<AnyObject>, keyPath: Unmanaged<AnyKeyPath>?)
        /// A Swift container type and a property name.
        case typed(containerType: Any.Type, property: String)
    }

    let object: ObjectIdentifier?
    let site: Site

    func isSameStep(as other: ResolutionFrame) -> Bool {
        guard object == other.object else { return false }
        switch (site, other.site) {
        case let (.named(c1, p1), .named(c2, p2)):
            return c1 == c2 && p1 == p2
        case let (.cell(_, c1, _), .cell(_, c2, _)):
            return c1.toOpaque() == c2.toOpaque()
        case let (.typed(t1, p1), .typed(t2, p2)):
            return t1 == t2 && p1 == p2
        default:
            return false
        }
    }

    var label: String {
        switch site {
        case let .named(container, property):
            return property.isEmpty ? container : "\(container).\(property)"
        case let .cell(container, cell, keyPath):
            let object = container.takeUnretainedValue()
            let name = (cell.takeUnretainedValue() as? any SpellCellNaming)?
                .propertyName(keyPath?.takeUnretainedValue(), in: object) ?? "?"
            return "\(SpellNames.containerName(of: object)).\(name)"
        case let .typed(containerType, property):
            return "\(SpellTypeKey(containerType).name).\(property)"
        }
    }
}

/// The stack of resolutions in progress on this thread.
///
/// Resolutions are synchronous (initializers are plain closures), so a
/// thread-local stack follows them exactly, also across nested resolutions
/// started by a script bridge through `Registry.trackResolution`.
final class ResolutionStack {
    @exclusivity(unchecked) var frames: [ResolutionFrame] = []
    /// A small direct-mapped cache of registry lookups made on this thread,
    /// checked against the registry's generation, so a warm lookup takes
    /// no lock. Only this thread touches it.
    @exclusivity(unchecked) var lookups = [ThreadResolutionCacheEntry?](repeating: nil, count: 64)

    /// The current thread's stack, created on first use and released with the thread.
    static var current: ResolutionStack {
        Unmanaged<ResolutionStack>.fromOpaque(currentPointer).takeUnretainedValue()
    }

    /// The current thread's stack as a raw pointer (no reference counting).
    static var currentPointer: UnsafeMutableRawPointer {
        if let raw = pthread_getspecific(resolutionStackKey) { return raw }
        let raw = Unmanaged.passRetained(ResolutionStack()).toOpaque()
        pthread_setspecific(resolutionStackKey, raw)
        return raw
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
        try track(ResolutionFrame(object: object.map(ObjectIdentifier.init), site: .named(container: container, property: property)), body)
    }

    /// Tracks a spell cell's resolution.
    @usableFromInline
    static func trackCellResolution<Result>(
        object: AnyObject, cell: any SpellCellNaming, keyPath: AnyKeyPath?, _ body: () throws -> Result
    ) throws -> Result {
        let site = ResolutionFrame.Site.cell(
            container: .passUnretained(object), cell: .passUnretained(cell as AnyObject), keyPath: keyPath.map { .passUnretained($0) }
        )
        return try track(ResolutionFrame(object: ObjectIdentifier(object), site: site), body)
    }

    /// Tracks a resolution of a named property of a Swift object.
    @usableFromInline
    static func trackTypedResolution<Result>(object: AnyObject, property: String, _ body: () throws -> Result) throws -> Result {
        let site = ResolutionFrame.Site.typed(containerType: type(of: object), property: property)
        return try track(ResolutionFrame(object: ObjectIdentifier(object), site: site), body)
    }

    private static func track<Result>(_ frame: ResolutionFrame, _ body: () throws -> Result) throws -> Result {
        // The thread owns its stack until it exits, so borrowing it
        // without a retain is safe for the length of this call.
        try Unmanaged<ResolutionStack>.fromOpaque(ResolutionStack.currentPointer)._withUnsafeGuaranteedRef { stack in
            try track(frame, on: stack, body)
        }
    }

    private static func track<Result>(_ frame: ResolutionFrame, on stack: ResolutionStack, _ body: () throws -> Result) throws -> Result {
        if let start = stack.frames.lastIndex(where: { $0.isSameStep(as: frame) }) {
            let chain = stack.frames[start...].map(\.label) + [frame.label]
            throw SpellError.dependencyCycle(chain: chain)
        }
        stack.frames.append(frame)
        defer { stack.frames.removeLast() }
        return try body()
    }

    /// The labels of the resolutions in progress on this thread, outermost
    /// first ("ViewController.loader"), for diagnostics.
    public static var resolutionsInProgress: [String] {
        ResolutionStack.current.frames.map(\.label)
    }
}

/// A token unique to the calling thread while it lives (its resolution stack).
@usableFromInline
func currentThreadToken() -> UnsafeMutableRawPointer {
    ResolutionStack.currentPointer
}

/// Lets other threads run (used while waiting for another thread to
/// publish a value it is producing).
@usableFromInline
func yieldThread() {
    sched_yield()
}
