import Foundation
import TestSupport
import Testing

/// `Fuzz/Scripts/error-heavy.lua`, which `scripts/memcheck` runs under
/// valgrind, still raises every error it means to (each `expect_error`
/// asserts one) and still ends on the instruction limit, so the leak check
/// keeps covering those paths.
@Suite("The error-heavy memcheck script")
struct ErrorHeavyScriptTests {
    @Test func everyRoundRaisesItsErrorsAndTheLimitEndsTheRun() throws {
        let script = packageRoot.appendingPathComponent("Fuzz/Scripts/error-heavy.lua").path
        let result = try bmlua(["--max-instructions", "50000000", "--max-memory", "16M", script, "2"])
        #expect(result.stdout == "caught 60 errors in 2 rounds\n", "\(result.stderr)")
        #expect(result.status == 1)
        #expect(result.stderr.contains("instruction limit exceeded"))
    }
}
