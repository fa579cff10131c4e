import BloodMagic
import Foundation
import Synchronization

/// Counts calls from any thread.
final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)
    @discardableResult
    func increment() -> Int { count.add(1, ordering: .relaxed).newValue }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Lets a test hand a non-Sendable object to threads it starts itself.
/// `@unchecked Sendable` invariant: the tests only use it to exercise the
/// spells' own thread-safety; the object under test is what synchronizes.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
}

/// Runs `body` on `count` threads released at the same moment; returns
/// when all have finished.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
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

protocol RequestClient: AnyObject {
    var label: String { get }
}

protocol Cancellable {}

final class HTTPClient: RequestClient, Cancellable {
    let label: String
    init(label: String) { self.label = label }
}

final class RequestManager: DefaultConstructible {
    let label: String
    init() { label = "default" }
    init(label: String) { self.label = label }
}

final class ProgressViewService {
    weak var owner: AnyObject?
    init(owner: AnyObject?) { self.owner = owner }
}
