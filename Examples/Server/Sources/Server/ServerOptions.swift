import Foundation
import Logging

/// The command line: `server [--hostname H] [--port P] [--scripts DIR]
/// [--poll MILLISECONDS] [--log-level LEVEL]`.
struct ServerOptions {
    /// Where to listen; loopback unless told otherwise.
    var hostname = "127.0.0.1"
    /// The port; 0 picks a free one (the log says which: `listening on http://…`).
    var port = 8080
    /// The scripts that wire the services.
    var scriptsDirectory = ServerOptions.bundledScripts
    /// Poll the scripts every so many milliseconds instead of the system's
    /// file events (for file systems that send none).
    var pollMilliseconds: Int?
    /// The least severe level logged.
    var logLevel = Logger.Level.info
    /// `--help`.
    var showsHelp = false

    /// `Examples/Server/scripts` of the checkout this binary was built from.
    static let bundledScripts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts").path

    static let usage = """
        usage: server [--hostname H] [--port P] [--scripts DIR] [--poll MILLISECONDS] [--log-level LEVEL]

        A JSON API whose services are wired by Lua scripts, reloaded when they change.
          --hostname H        address to listen on (default 127.0.0.1)
          --port P            port (default 8080; 0: a free one, logged as "listening on http://H:P")
          --scripts DIR       the wiring scripts (default: the example's scripts/)
          --poll MS           poll the scripts every MS milliseconds instead of the system's file events
          --log-level LEVEL   trace, debug, info (default), notice, warning, error, critical
        SIGTERM or SIGINT (Ctrl-C) shuts it down gracefully.
        """

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ arguments: [String]) throws -> ServerOptions {
        var options = ServerOptions()
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--hostname": options.hostname = try value(argument)
            case "--port":
                guard let port = Int(try value(argument)), (0...65_535).contains(port) else {
                    throw UsageError(description: "--port takes a number from 0 to 65535")
                }
                options.port = port
            case "--scripts": options.scriptsDirectory = try value(argument)
            case "--poll":
                guard let interval = Int(try value(argument)), interval > 0 else {
                    throw UsageError(description: "--poll takes a positive number of milliseconds")
                }
                options.pollMilliseconds = interval
            case "--log-level":
                let text = try value(argument)
                guard let level = Logger.Level(rawValue: text) else {
                    throw UsageError(description: "unknown log level '\(text)'")
                }
                options.logLevel = level
            case "-h", "--help": options.showsHelp = true
            default: throw UsageError(description: "unknown argument '\(argument)'")
            }
        }
        return options
    }
}
