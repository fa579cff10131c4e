// server: a Hummingbird 2 JSON API whose services are wired by Lua scripts
// (Examples/Server/scripts). Edit a script while it runs: the next request
// is served by the new wiring, or, when the edit is broken, by the old one,
// with the error in the log. SIGTERM or Ctrl-C shuts it down gracefully.
import BloodMagicLua
import BloodMagicServiceLifecycle
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

let options: ServerOptions
do {
    options = try ServerOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("server: \(error)\n\(ServerOptions.usage)\n".utf8))
    exit(2)
}
if options.showsHelp {
    print(ServerOptions.usage)
    exit(0)
}

// Every log line, the library's included (label BloodMagic: a refused
// reload, with its file:line), on standard error.
let level = options.logLevel
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = level
    return handler
}
var logger = Logger(label: "server")
logger.logLevel = level

// Load the scripts before the server listens, so that no request finds the
// services unwired; a script that fails stops the server here, each failing
// file as `file:line: message`.
let host: ScriptHost
do {
    host = try ScriptWiring.makeHost(scriptsDirectory: options.scriptsDirectory)
    try host.loadStartupScripts()
} catch let error as ScriptLoadError {
    for failure in error.failures { logger.critical("\(failure.message)") }
    exit(1)
} catch {
    logger.critical("\(error)")
    exit(1)
}
logger.info("wired by \(options.scriptsDirectory)")

// The host is loaded, so the service only watches it, and stops watching
// when the group shuts down.
let watchMode = options.pollMilliseconds.map { ScriptWatchMode.polling(interval: .milliseconds($0)) } ?? .native
// SIGHUP reloads too (`kill -HUP <pid>`), as nginx and HAProxy do.
let scripts = ScriptHostService(host: host, watchMode: watchMode, reloadSignals: [SIGHUP], logger: logger)
let app = Application(
    router: makeRouter(),
    configuration: .init(address: .hostname(options.hostname, port: options.port), serverName: "bloodmagic-example"),
    onServerRunning: { [logger, hostname = options.hostname, port = options.port] channel in
        // With --port 0 the port is the system's choice: say which.
        let address = channel.localAddress
        logger.info("listening on http://\(address?.ipAddress ?? hostname):\(address?.port ?? port)")
    },
    logger: logger)

// Shut down in reverse order on SIGTERM or SIGINT: the HTTP server first
// (it stops accepting and finishes the requests in flight), then the
// scripts' watcher.
let group = ServiceGroup(configuration: .init(
    services: [.init(service: scripts), .init(service: app)],
    gracefulShutdownSignals: [.sigterm, .sigint],
    logger: logger))
do {
    try await group.run()
} catch {
    logger.critical("stopped: \(error)")
    exit(1)
}
logger.info("shut down cleanly")
