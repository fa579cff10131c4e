// A plain benchmark harness: each case runs several rounds of a fixed
// number of operations; the report gives the best and median nanoseconds
// per operation and, for cases that name a baseline, the ratio of their
// best time to the baseline's best time measured in the same run.

import BenchCallgrind

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a value alive and opaque to the optimizer, so the work that
/// produced it cannot be deleted.
@inline(never)
public func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Returns its argument through an opaque call, so the optimizer cannot
/// hoist or constant-fold work that depends on it.
@inline(never)
public func identity<T>(_ value: T) -> T {
    value
}

/// Monotonic nanoseconds.
public func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// The measurements of one case.
public struct BenchmarkResult: Sendable {
    /// The case's name.
    public let name: String
    /// The name of the case it is compared with, if any.
    public let baseline: String?
    /// What the ratio should be at most, if there is a goal.
    public let goal: Double?
    /// Nanoseconds per operation of each round.
    public let roundsNanosecondsPerOperation: [Double]

    /// The best round.
    public var best: Double { roundsNanosecondsPerOperation.min() ?? .nan }
    /// The median round.
    public var median: Double {
        let sorted = roundsNanosecondsPerOperation.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
}

/// Runs benchmark cases and prints a report.
public final class BenchmarkSuite {
    /// The suite's title, printed above its table.
    public let title: String
    /// Rounds per case.
    public let rounds: Int
    private(set) var results: [BenchmarkResult] = []

    /// A suite running each case `rounds` times.
    public init(_ title: String, rounds: Int = 7) {
        self.title = title
        self.rounds = rounds
    }

    /// Measures `body`, which must perform `operations` operations per call.
    /// `setup` runs before each round, outside the timing.
    @discardableResult
    public func measure(
        _ name: String,
        operations: Int,
        baseline: String? = nil,
        goal: Double? = nil,
        setup: () -> Void = {},
        _ body: (Int) -> Void
    ) -> BenchmarkResult? {
        if let filter = BenchmarkSuite.filter, !name.contains(filter), !(baseline.map { $0.contains(filter) } ?? false) {
            return nil
        }
        if BenchmarkSuite.listing {
            // `scripts/bench-cost` asks for the cases and their baselines
            // and goals without running any of them.
            print("bench-case\t\(name)\t\(baseline ?? "")\t\(goal.map { String($0) } ?? "")")
            return nil
        }
        if let only = BenchmarkSuite.only, name != only { return nil }
        if BenchmarkSuite.callgrind {
            // One warm-up, then one round with callgrind collecting (run
            // under `valgrind --tool=callgrind --collect-atstart=no`): its
            // total instructions divided by `operations` is the cost of one.
            // BENCH_SCALE (0 < scale <= 1) shortens the round for the
            // slower cache-simulating runs of `scripts/bench-cost`.
            let operations = max(1, Int((Double(operations) * BenchmarkSuite.scale).rounded()))
            setup()
            body(max(1, operations / 10))
            setup()
            bench_callgrind_toggle()
            body(operations)
            bench_callgrind_toggle()
            print("callgrind-case\t\(name)\t\(operations)")
            return nil
        }
        setup()
        body(max(1, operations / 10))  // warm-up
        var perOperation: [Double] = []
        for _ in 0..<rounds {
            perOperation.append(Self.timeRound(operations: operations, setup: setup, body))
        }
        let result = BenchmarkResult(name: name, baseline: baseline, goal: goal, roundsNanosecondsPerOperation: perOperation)
        results.append(result)
        return result
    }

    /// One case of ``measureAlternating(_:)``.
    public struct Case {
        let name: String
        let operations: Int
        let baseline: String?
        let goal: Double?
        let setup: () -> Void
        let body: (Int) -> Void

        /// A case as ``BenchmarkSuite/measure(_:operations:baseline:goal:setup:_:)`` takes it.
        public init(
            _ name: String, operations: Int, baseline: String? = nil, goal: Double? = nil,
            setup: @escaping () -> Void = {}, _ body: @escaping (Int) -> Void
        ) {
            self.name = name
            self.operations = operations
            self.baseline = baseline
            self.goal = goal
            self.setup = setup
            self.body = body
        }
    }

    /// Measures `cases` in alternation: each round runs every case once,
    /// in order. A case compared with another then runs in the same
    /// conditions as its baseline (the same heap age, the same machine
    /// load), where measuring one case's rounds after the other's would
    /// give the later case a process that earlier rounds have aged.
    public func measureAlternating(_ cases: [Case]) {
        if BenchmarkSuite.callgrind || BenchmarkSuite.listing || BenchmarkSuite.filter != nil
            || BenchmarkSuite.only != nil {
            for item in cases {
                measure(item.name, operations: item.operations, baseline: item.baseline, goal: item.goal,
                        setup: item.setup, item.body)
            }
            return
        }
        for item in cases {
            item.setup()
            item.body(max(1, item.operations / 10))  // warm-up
        }
        var perOperation = [[Double]](repeating: [], count: cases.count)
        for _ in 0..<rounds {
            for (index, item) in cases.enumerated() {
                perOperation[index].append(Self.timeRound(operations: item.operations, setup: item.setup, item.body))
            }
        }
        for (index, item) in cases.enumerated() {
            results.append(BenchmarkResult(
                name: item.name, baseline: item.baseline, goal: item.goal,
                roundsNanosecondsPerOperation: perOperation[index]))
        }
    }

    /// One timed round: `setup` (untimed), then `body`; nanoseconds per operation.
    private static func timeRound(operations: Int, setup: () -> Void, _ body: (Int) -> Void) -> Double {
        setup()
        let start = monotonicNanoseconds()
        body(operations)
        let end = monotonicNanoseconds()
        return Double(end - start) / Double(operations)
    }

    /// Only cases whose name (or baseline's name) contains this run, when
    /// the BENCH_FILTER environment variable is set.
    static let filter: String? = getenv("BENCH_FILTER").map { String(cString: $0) }

    /// Only the case named exactly this, when BENCH_ONLY is set.
    static let only: String? = getenv("BENCH_ONLY").map { String(cString: $0) }

    /// Whether BENCH_CALLGRIND is set: each case runs one collected round
    /// (see `scripts/bench-counts`).
    static let callgrind = getenv("BENCH_CALLGRIND") != nil

    /// Whether BENCH_LIST is set: each case prints its name, baseline and
    /// goal (`bench-case<TAB>name<TAB>baseline<TAB>goal`) and runs nothing.
    static let listing = getenv("BENCH_LIST") != nil

    /// The share of a case's operations a collected round runs (BENCH_SCALE,
    /// default 1): the per-operation cost stays, the run gets shorter.
    static let scale: Double = {
        guard let text = getenv("BENCH_SCALE").map({ String(cString: $0) }), let value = Double(text),
              value > 0, value <= 1 else { return 1 }
        return value
    }()

    /// The result of the case named `name`.
    public func result(named name: String) -> BenchmarkResult? {
        results.first { $0.name == name }
    }

    /// Prints the table: best and median ns/op, and ratio to the baseline.
    public func printReport() {
        print("== \(title) ==")
        let width = max(40, results.map(\.name.count).max() ?? 0)
        print(pad("case", width) + "  " + lpad("best ns/op", 11) + "  " + lpad("median", 9) + "  ratio")
        for result in results {
            var line = pad(result.name, width) + "  " + lpad(format(result.best), 11) + "  " + lpad(format(result.median), 9)
            if let baselineName = result.baseline, let baseline = self.result(named: baselineName) {
                let ratio = result.best / baseline.best
                line += "  " + format(ratio) + "x " + baselineName
                if let goal = result.goal {
                    line += ratio <= goal ? " (goal <= \(format(goal))x: met)" : " (goal <= \(format(goal))x: MISSED)"
                }
            }
            print(line)
        }
        print("")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private func lpad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    private func format(_ value: Double) -> String {
        if value.isNaN { return "n/a" }
        let scaled = (value * 1000).rounded() / 1000
        if scaled >= 100 { return String(Int(scaled.rounded())) }
        var text = String(scaled)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
