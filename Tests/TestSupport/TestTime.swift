// Wall-clock bounds in tests, scaled for slow runs.
import Foundation

/// The wall-clock bounds the tests put on work that must stay linear (a
/// quadratic walk takes minutes or hours where the linear one takes
/// milliseconds, so the bounds sit far above the normal time).
///
/// A sanitized build runs 5-15 times slower, so `scripts/sanitize` sets
/// `BM_TEST_TIME_SCALE` and every bound is multiplied by it: the run then
/// reports the sanitizer's findings, not its own slowness. Unset, the
/// scale is 1.
public enum TestTime {
    /// `BM_TEST_TIME_SCALE` (a positive number), or 1.
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["BM_TEST_TIME_SCALE"],
              let value = Double(text), value.isFinite, value > 0 else { return 1 }
        return value
    }()

    /// `duration` times ``scale``.
    public static func bound(_ duration: Duration) -> Duration { duration * scale }

    /// `seconds` times ``scale``.
    public static func bound(seconds: Double) -> Double { seconds * scale }
}
