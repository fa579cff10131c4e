// Threads that keep reading while a test reloads or commits what they read:
// the harness of the "N threads reading during reloads" tests of both test
// targets.
@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization

/// `count` threads, each calling its reader in a loop until `stop()`; what
/// the readers report (and what they throw) is collected, prefixed with
/// `thread N: `.
public final class ConcurrentReaders: Sendable {
    private let running = Atomic<Bool>(true)
    private let readCount = Atomic<Int>(0)
    private let problems = Lock<[String]>([])
    private let readers = DispatchGroup()

    /// Starts `count` threads. Each calls `makeReader(thread)` once, on its
    /// own thread (so the reader may keep state from one read to the next),
    /// then calls the reader until `stop()`. A read returns the problems it
    /// found (none: empty); a read that throws is a problem too.
    public init(threads count: Int, _ makeReader: @escaping @Sendable (_ thread: Int) -> () throws -> [String]) {
        for thread in 0..<count {
            readers.enter()
            Thread.detachNewThread { [self] in
                defer { readers.leave() }
                let read = makeReader(thread)
                while running.load(ordering: .acquiring) {
                    do {
                        let found = try read()
                        if !found.isEmpty { problems.withLock { $0 += found.map { "thread \(thread): \($0)" } } }
                        readCount.add(1, ordering: .relaxed)
                    } catch {
                        problems.withLock { $0.append("thread \(thread): \(error)") }
                    }
                }
            }
        }
    }

    /// How many reads have finished so far.
    public var reads: Int { readCount.load(ordering: .relaxed) }

    /// Calls `change` with 1, 2, 3, … for `duration`, and after that until
    /// the readers have done `minimumReads` reads (a deadline, not a count:
    /// the machine may be slow; at most 30 s more). Returns how many changes
    /// it made.
    @discardableResult
    public func keepChanging(for duration: Duration, untilReads minimumReads: Int, _ change: (Int) throws -> Void) rethrows -> Int {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        var changes = 0
        while clock.now < deadline || reads < minimumReads {
            changes += 1
            try change(changes)
            if clock.now > deadline + .seconds(30) { break }
        }
        return changes
    }

    /// Stops the readers, waits for them, and returns the problems found.
    public func stop() -> [String] {
        running.store(false, ordering: .releasing)
        readers.wait()
        return problems.withLock { $0 }
    }
}
