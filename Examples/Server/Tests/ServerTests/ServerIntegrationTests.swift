import Foundation
import Testing

// Issue 27, "The example and its figures": the server, started as a
// deployment would start it, serves through its scripts' wiring, picks up an
// edit, keeps serving the old wiring when an edit is broken (and logs why),
// and exits cleanly on SIGTERM. Every wait is a deadline, polled.

/// How long an edit may take to be in force (or refused). The watcher
/// reacts within milliseconds; the margin is for a loaded machine.
private let reloadDeadline: Duration = .seconds(10)

/// A copy of the example's scripts, which the test edits.
private func copyOfTheScripts() throws -> URL {
    let shipped = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts")
    let copy = FileManager.default.temporaryDirectory
        .appendingPathComponent("bm-server-\(UUID().uuidString.prefix(8))/scripts")
    try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: shipped, to: copy)
    return copy
}

/// Saves `text` as `name` the way editors and deployments do: a new file
/// beside the directory, renamed over the old one (the watcher never sees a
/// half-written script).
private func save(_ text: String, as name: String, in scripts: URL) throws {
    let temporary = scripts.deletingLastPathComponent().appendingPathComponent(".\(name).new")
    try Data(text.utf8).write(to: temporary)
    guard rename(temporary.path, scripts.appendingPathComponent(name).path) == 0 else {
        throw ServerTestError("rename onto \(name) failed: errno \(errno)")
    }
}

private func greetingScript(_ greeting: String) -> String {
    """
    bm.singleton {
      type = "Greeter",
      init = function()
        return Greeter.new { greeting = "\(greeting)", punctuation = "!" }
      end,
    }

    """
}

/// A broken edit of a script, and what must happen.
struct BrokenEdit: CustomTestStringConvertible, Sendable {
    enum Outcome: Sendable {
        /// The reload is refused: the old wiring keeps serving, and the log
        /// has the error with `file:line`.
        case refused
    }

    var name: String
    var file: String
    var text: String
    /// In the log when the reload is refused (the error's `file:line:`).
    var position: String
    var outcome: Outcome

    var testDescription: String { name }

    static let all: [BrokenEdit] = [
        BrokenEdit(
            name: "a syntax error",
            file: "20-prices.lua",
            text: """
                bm.initializer {
                  type = "PriceList",
                  init = function()
                    return { currency = "EUR", prices = { apple = 999 }
                  end,
                }

                """,
            position: "20-prices.lua:5:",
            outcome: .refused),
        BrokenEdit(
            name: "a script that fails at resolution (prices of the wrong type)",
            file: "20-prices.lua",
            text: """
                bm.initializer {
                  type = "PriceList",
                  init = function()
                    return { currency = "EUR", prices = "none today" }
                  end,
                }

                """,
            position: "20-prices.lua:",
            // A reload resolves what the app declared before it commits.
            outcome: .refused),
    ]
}

/// How many times `fragment` occurs in `text`.
private func occurrences(of fragment: String, in text: String) -> Int {
    text.components(separatedBy: fragment).count - 1
}

/// `GET path` from `server`; an error says whether the server is still up,
/// with its log.
private func request(_ path: String, from server: ServerProcess) throws -> HTTPReply {
    do {
        return try LoopbackHTTP.get(path, port: server.port)
    } catch {
        let state = server.isRunning ? "still running" : "exited"
        throw ServerTestError("GET \(path): \(error); the server has \(state); its log:\n\(server.log)")
    }
}

@Suite("Examples/Server: wired by scripts, reloaded live, shut down by SIGTERM")
struct ServerIntegrationTests {
    @Test func servesReloadsKeepsTheOldWiringOnABrokenEditAndExitsCleanly() throws {
        let scripts = try copyOfTheScripts()
        let server = try ServerProcess(scripts: scripts.path)
        defer { server.killIfRunning() }
        func get(_ path: String) throws -> HTTPReply { try request(path, from: server) }

        // The shipped wiring.
        #expect(try get("/health").json?["status"] as? String == "ok")
        #expect(try get("/hello/Ada").json?["message"] as? String == "Hello, Ada!")
        let apple = try get("/prices/apple")
        #expect(apple.status == 200 && apple.json?["price"] as? Int == 120, "\(apple)")
        #expect(try get("/prices/durian").status == 404)

        // An edit is in force on a later request, without a restart.
        try save(greetingScript("Howdy"), as: "10-greeting.lua", in: scripts)
        let greeted = try poll(within: reloadDeadline) { () -> String? in
            let message = try get("/hello/Ada").json?["message"] as? String
            return message == "Howdy, Ada!" ? message : nil
        }
        #expect(greeted != nil, "the edited greeting was not served within \(reloadDeadline); log:\n\(server.log)")
        #expect(server.log.contains("reloaded the scripts"))

        let good = try String(contentsOf: scripts.appendingPathComponent("20-prices.lua"), encoding: .utf8)
        for edit in BrokenEdit.all {
            try check(edit, restoring: good, server: server, scripts: scripts)
        }

        // SIGTERM: a graceful shutdown and exit status 0.
        let status = server.terminate()
        #expect(status == 0, "exit status after SIGTERM: \(status.map(String.init) ?? "still running at the deadline"); log:\n\(server.log)")
        #expect(server.log.contains("stopped watching the scripts"), "\(server.log)")
        #expect(server.log.contains("shut down cleanly"), "\(server.log)")
    }

    /// Saves `edit`, checks the outcome, then restores the good script and
    /// waits until it serves again.
    private func check(_ edit: BrokenEdit, restoring good: String, server: ServerProcess, scripts: URL) throws {
        func get(_ path: String) throws -> HTTPReply { try request(path, from: server) }
        let refusal = "reloading the scripts failed"
        let wiringError = "wiring error serving GET /prices/apple"
        let reloaded = "reloaded the scripts"
        let refusedBefore = occurrences(of: refusal, in: server.log)
        let reloadedBefore = occurrences(of: reloaded, in: server.log)

        try save(edit.text, as: edit.file, in: scripts)
        enum Seen { case refused, swappedIn }
        let seen = poll(within: reloadDeadline) { () -> Seen? in
            if occurrences(of: refusal, in: server.log) > refusedBefore { return .refused }
            if occurrences(of: reloaded, in: server.log) > reloadedBefore {
                return .swappedIn
            }
            return nil
        }
        switch seen {
        case nil:
            Issue.record("\(edit.name): neither refused nor swapped in within \(reloadDeadline); log:\n\(server.log)")
        case .refused:
            // The old wiring still serves, and the log says why, with file:line.
            let apple = try get("/prices/apple")
            #expect(apple.status == 200 && apple.json?["price"] as? Int == 120, "\(edit.name): \(apple)")
            let log = server.log
            #expect(log.contains(edit.position), "\(edit.name): the log does not name \(edit.position):\n\(log)")
            #expect(log.contains("refused the scripts' reload; the previous wiring stays in force"), "\(edit.name):\n\(log)")
        case .swappedIn:
            Issue.record("\(edit.name): the broken wiring was swapped in; log:\n\(server.log)")
            // Even then, a wiring error costs the request, never the process.
            let reply = try get("/prices/apple")
            #expect(reply.status == 500 && server.log.contains(wiringError), "\(edit.name): \(reply)")
        }
        #expect(server.isRunning, "\(edit.name): the server exited; log:\n\(server.log)")

        // Restore the good script: the prices are served again.
        let restoredBefore = occurrences(of: reloaded, in: server.log)
        try save(good, as: edit.file, in: scripts)
        let restored = try poll(within: reloadDeadline) { () -> Bool? in
            guard occurrences(of: reloaded, in: server.log) > restoredBefore else { return nil }
            let apple = try get("/prices/apple")
            return apple.status == 200 && apple.json?["price"] as? Int == 120 ? true : nil
        }
        #expect(restored != nil, "\(edit.name): the restored script did not serve within \(reloadDeadline); log:\n\(server.log)")
    }

    @Test func aBrokenStartupScriptStopsTheServerWithItsPosition() throws {
        let scripts = try copyOfTheScripts()
        try save("bm.initializer {\n  type = \"PriceList\",\n  init = function() return {} end\n", as: "20-prices.lua", in: scripts)
        do {
            let server = try ServerProcess(scripts: scripts.path)
            server.killIfRunning()
            Issue.record("the server listened with a broken startup script; log:\n\(server.log)")
        } catch let error as ServerTestError {
            // It never listens: exit status 1, and the error's file:line.
            #expect(error.description.contains("the server exited (status 1) before listening"), "\(error)")
            #expect(error.description.contains("20-prices.lua:4: '}' expected"), "\(error)")
        }
    }
}
