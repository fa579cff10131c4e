import Foundation
import Synchronization
import Testing
@testable import BloodMagicLua
import TestSupport

/// Counts live instances, to prove that Swift objects are released.
final class LiveCounter: Sendable {
    private let count = Atomic<Int>(0)
    var live: Int { count.load(ordering: .acquiring) }
    func up() { count.add(1, ordering: .relaxed) }
    func down() { count.subtract(1, ordering: .relaxed) }
}

/// An object whose lifetime a test watches.
final class Tracked: Sendable {
    let counter: LiveCounter
    let label: String
    init(_ counter: LiveCounter, _ label: String = "tracked") {
        self.counter = counter
        self.label = label
        counter.up()
    }
    deinit { counter.down() }
}

/// An error that holds a tracked object.
struct TrackedError: Error, CustomStringConvertible {
    let payload: Tracked
    var description: String { "tracked failure: \(payload.label)" }
}

extension LuaState {
    /// Runs `code` and returns its first result converted to `T`.
    func evaluate<T: LuaReadable>(_ code: String, as type: T.Type = T.self) throws -> T {
        try withStack { (lua) throws(LuaError) -> T in
            try lua.load(code, name: "=test")
            try lua.call(arguments: 0, results: 1)
            defer { lua.pop() }
            return try lua.value(at: -1)
        }
    }

    /// The error running `code` as the chunk `name` raises; records an
    /// issue at the caller's line, and throws, when it raises none.
    func failure(running code: String, name: String = "=(load)", sourceLocation: SourceLocation = #_sourceLocation) throws -> LuaError {
        try #require(throws: LuaError.self, sourceLocation: sourceLocation) { try run(code, name: name) }
    }
}

/// Decodes the value `code` returns, in a fresh state.
func decode<T: Decodable>(_ type: T.Type, from code: String) throws -> T {
    let state = try LuaState()
    return try state.withStack { (lua) throws(LuaError) -> T in
        try lua.load(code, name: "=test")
        try lua.call(arguments: 0, results: 1)
        return try lua.decode(T.self, at: -1)
    }
}

/// A temporary directory removed at the end of the test.
func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
    let dir = ScratchPaths.url("bm")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    return try body(dir)
}
