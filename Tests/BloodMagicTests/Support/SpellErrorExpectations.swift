import BloodMagic
import Testing

/// Expects `body` to throw a `SpellError` whose message contains `text`
/// (a failure points at the caller's `sourceLocation`).
func expectSpellError(
    containing text: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Any
) {
    do {
        _ = try body()
        Issue.record("expected a SpellError saying \"\(text)\"; nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as SpellError {
        #expect("\(error)".contains(text), "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a SpellError, got \(error)", sourceLocation: sourceLocation)
    }
}
