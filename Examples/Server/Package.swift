// swift-tools-version: 6.1
//
// The server example: a Hummingbird 2 JSON API whose services are wired by
// Lua scripts (scripts/*.lua), reloaded live, shut down gracefully. A
// package of its own, so the library never depends on Hummingbird.
//
// From the repository root:
//   swift run --package-path Examples/Server server --scripts Examples/Server/scripts
// Its integration test runs in ./scripts/test (scripts/test-example-server).

import PackageDescription

let package = Package(
    name: "ServerExample",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The library, from this repository.
        .package(name: "BloodMagic", path: "../.."),
        // No default traits: the example needs neither swift-configuration
        // nor the full-Foundation form encoders, and builds faster without.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0", traits: []),
        .package(url: "https://github.com/apple/swift-log", from: "1.11.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "server",
            dependencies: [
                .product(name: "BloodMagicLua", package: "BloodMagic"),
                .product(name: "BloodMagicServiceLifecycle", package: "BloodMagic"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Server"
        ),
        // Starts the built `server` as a child process on loopback and
        // talks HTTP to it (a plain socket: no client library to build).
        // `swift build --build-tests` builds the server beside it.
        .testTarget(
            name: "ServerTests",
            path: "Tests/ServerTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
