// Helpers shared by both test targets: threads released at once, a
// thread-safe counter, a box for handing objects to those threads, and a
// count of the distinct objects threads read.
@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization

/// Counts calls from any thread.
public final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)
    /// A counter at zero.
    public init() {}
    /// Adds one; returns the new count.
    @discardableResult
    public func increment() -> Int { count.add(1, ordering: .relaxed).newValue }
    /// The count so far.
    public var value: Int { count.load(ordering: .relaxed) }
}

/// Lets a test hand a non-Sendable object to threads it starts itself.
/// `@unchecked Sendable` invariant: the tests only use it to exercise the
/// spells' own thread-safety; the object under test is what synchronizes.
public struct UncheckedBox<T>: @unchecked Sendable {
    /// The boxed value.
    public let value: T
    /// Boxes `value`.
    public init(value: T) { self.value = value }
}

/// Runs `body` on `count` threads released at the same moment; returns
/// when all have finished.
public func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let start = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for index in 0..<count {
        done.enter()
        let thread = Thread {
            start.wait()
            body(index)
            done.leave()
        }
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    done.wait()
}


/// Calls `read` on `count` threads released at the same moment (see
/// ``runOnThreads(_:_:)``); returns how many distinct objects they read.
public func distinctObjects(readOn count: Int, _ read: @escaping @Sendable () -> AnyObject) -> Int {
    let seen = Lock<Set<ObjectIdentifier>>([])
    runOnThreads(count) { _ in
        let object = ObjectIdentifier(read())
        seen.withLock { _ = $0.insert(object) }
    }
    return seen.withLock { $0.count }
}

/// A list any thread may append to: what callbacks (hooks, resolvers,
/// watchers, event iterators) saw, in order.
public final class SharedLog<Element: Sendable>: Sendable {
    private let items = Lock<[Element]>([])
    /// An empty log.
    public init() {}
    /// Appends `item`.
    public func add(_ item: Element) { items.withLock { $0.append(item) } }
    /// Everything added so far, in order.
    public var all: [Element] { items.withLock { $0 } }
}
