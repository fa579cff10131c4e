/// An error from the Lua host: a failed load or call, a limit that was hit,
/// or a value that did not convert.
///
/// `message` is what Lua reported, in Lua's own `file:line: message` form
/// where Lua knows the position, so editors can jump to it. `chunk` and `line`
/// are that position parsed out, and `traceback` is the stack at the point of
/// the error when it was raised inside a protected call.
public struct LuaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, broadly.
    public enum Kind: String, Sendable, Equatable {
        /// A chunk did not compile.
        case syntax
        /// A runtime error raised by Lua code or by a Swift callback.
        case runtime
        /// The state's memory limit was hit.
        case memoryLimit
        /// The run's instruction budget was used up.
        case instructionLimit
        /// The run's time budget (wall clock) was used up.
        case timeLimit
        /// The system allocator failed (not the configured limit).
        case outOfMemory
        /// The message handler itself failed.
        case messageHandler
        /// A value did not convert between Lua and Swift.
        case conversion
        /// A file could not be read.
        case io
        /// The host was used in a way it does not allow.
        case usage
        /// The Lua stack could not grow to hold a value Swift pushes or
        /// reads (a script filled it almost to Lua's limit).
        case stackOverflow
    }

    /// What went wrong, broadly.
    public var kind: Kind
    /// The full message, as Lua reports it (`path:line: message` when Lua knows the position).
    public var message: String
    /// The chunk name from the message's `chunk:line:` prefix, when it has one.
    public var chunk: String?
    /// The line from the message's `chunk:line:` prefix, when it has one.
    public var line: Int?
    /// The Lua stack traceback at the point of the error, when one was taken.
    public var traceback: String?

    /// Creates an error, parsing `chunk:line:` out of the message.
    public init(_ kind: Kind, _ message: String, traceback: String? = nil) {
        self.kind = kind
        self.message = message
        self.traceback = traceback
        if let (chunk, line) = LuaError.parseLocation(message) {
            self.chunk = chunk
            self.line = line
        }
    }

    /// The message without the `chunk:line: ` prefix.
    public var reason: String {
        guard let chunk, let line else { return message }
        let prefix = "\(chunk):\(line): "
        return message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
    }

    /// The message, as Lua reports it.
    public var description: String { message }

    /// Finds the first `chunk:line:` prefix in a Lua message.
    static func parseLocation(_ message: String) -> (String, Int)? {
        // Lua writes `short_src:line:`; short_src may itself hold colons (a
        // Windows drive, a `[string "a:b"]`), so take the first `:digits:`.
        let scalars = Array(message.utf8)
        var i = 0
        while i < scalars.count {
            if scalars[i] == UInt8(ascii: ":"), i > 0 {
                var j = i + 1
                var line = 0
                while j < scalars.count, scalars[j] >= 48, scalars[j] <= 57, j - i < 10 {
                    line = line * 10 + Int(scalars[j] - 48)
                    j += 1
                }
                if j > i + 1, j < scalars.count, scalars[j] == UInt8(ascii: ":") {
                    let chunk = String(decoding: scalars[0..<i], as: UTF8.self)
                    if chunk.contains("\n") { return nil }
                    return (chunk, line)
                }
            }
            if scalars[i] == UInt8(ascii: "\n") { return nil }
            i += 1
        }
        return nil
    }
}
