// Paths the tests make under the temporary directory, removed at exit.
import Foundation
@_spi(BloodMagicInternals) import BloodMagic

/// Fresh paths under the temporary directory for a test's files, each
/// removed (with everything under it) when the test process exits, so that
/// a run leaves nothing behind in `/tmp` however its tests end.
///
/// Removal is at exit, not at the end of each test: a test may hand its
/// directory to a child process or to a host that is still watching it.
public enum ScratchPaths {
    private static let made = Lock<[URL]>([])
    private static let removalAtExit: Void = {
        atexit { ScratchPaths.removeAll() }
    }()

    /// A new path `<temporary directory>/<prefix>-<8 hex digits><suffix>`,
    /// not created, removed at exit.
    public static func url(_ prefix: String, suffix: String = "") -> URL {
        _ = removalAtExit
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))\(suffix)")
        made.withLock { $0.append(url) }
        return url
    }

    /// Removes every path made so far (at exit).
    static func removeAll() {
        for url in made.withLock({ $0 }) { try? FileManager.default.removeItem(at: url) }
    }
}
