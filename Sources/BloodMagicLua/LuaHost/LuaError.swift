/// An error from the Lua host: a failed load or call, a limit that was hit,
/// or a value that did not convert.
///
/// `message` is what Lua reported, in Lua's own `file:line: message` form
/// where Lua knows the position, so editors can jump to it. `chunk` and `line`
/// are that position parsed out, and `traceback` is the stack at the point of
/// the error when it was raised inside a protected call.
///
/// A Swift error thrown inside a callback that Lua called (an exposed
/// method or property, a function pushed with
/// ``LuaStack/push(function:)``, a registry initializer, hook or resolver
/// run for a script) travels through Lua as itself: the `LuaError` a call
/// throws keeps it as its ``cause``, however many `pcall`s caught it and
/// `error(e)` raised it again on the way.
///
/// ```swift
/// do {
///     try state.run("account:withdraw(500)", name: "@pay.lua")
/// } catch let error as LuaError where error.cause is InsufficientFunds {
///     print(error.message)  // "pay.lua:1: InsufficientFunds(...)"
/// }
/// ```
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
    /// The Swift error that started this one: thrown by a Swift callback
    /// that Lua called, and carried through Lua to here (see the type's
    /// overview). Nil for an error that Lua code or the host raised.
    ///
    /// A script never sees it: Lua code gets an error value that reads as
    /// ``message`` (`tostring`, `..`, string methods), and cannot make one
    /// that carries a cause.
    public var cause: (any Error)?

    /// Creates an error, parsing `chunk:line:` out of the message.
    public init(_ kind: Kind, _ message: String, traceback: String? = nil, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.traceback = traceback
        self.cause = cause
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

    /// The ``cause`` when it is an `E`, looking through causes that are
    /// themselves `LuaError`s (an error that crossed several states).
    ///
    /// ```swift
    /// catch let error as LuaError {
    ///     if let refusal = error.cause(as: InsufficientFunds.self) { ... }
    /// }
    /// ```
    public func cause<E: Error>(as type: E.Type = E.self) -> E? {
        var next = cause
        // Each step goes one cause down; a chain is as long as the
        // errors that Swift built, never a script's to lengthen.
        while let error = next {
            if let match = error as? E { return match }
            next = (error as? LuaError)?.cause
        }
        return nil
    }

    /// Whether two errors say the same thing: the same kind, message,
    /// position and traceback, and causes of the same type that are equal
    /// (when that type is `Equatable`) or read the same.
    public static func == (a: LuaError, b: LuaError) -> Bool {
        a.kind == b.kind && a.message == b.message && a.chunk == b.chunk && a.line == b.line
            && a.traceback == b.traceback && sameCause(a.cause, b.cause)
    }

    private static func sameCause(_ a: (any Error)?, _ b: (any Error)?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (a?, b?):
            guard type(of: a) == type(of: b) else { return false }
            if let equatable = (a as Any) as? any Equatable { return equatable.isEqual(to: b) }
            return String(reflecting: a) == String(reflecting: b)
        default: return false
        }
    }

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

extension Equatable {
    /// Whether `other` is a `Self` equal to this value.
    fileprivate func isEqual(to other: Any) -> Bool {
        (other as? Self).map { $0 == self } ?? false
    }
}
