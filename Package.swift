// swift-tools-version: 6.0
//
// BloodMagic for Swift: property-wrapper spells, a registry of initializers,
// and a safe Lua 5.4 host that lets startup scripts define the wiring.

import PackageDescription

let package = Package(
    name: "BloodMagic",
    platforms: [
        // `Mutex` and `Atomic` from the Synchronization module set these
        // minimums; nothing the library uses is macOS-only.
        .macOS(.v15),
        .iOS(.v18),
        .tvOS(.v18),
        .watchOS(.v11),
        .visionOS(.v2),
    ],
    products: [
        // The spell engine: spells, registry, preferences. Pure Swift; it
        // builds on a machine without Lua.
        .library(name: "BloodMagic", targets: ["BloodMagic"]),
        // The Lua host, the bridge, the `bm` module, ScriptHost and
        // ScriptChecker, on top of the engine (which it re-exports).
        .library(name: "BloodMagicLua", targets: ["BloodMagicLua"]),
        // A ScriptHost as a swift-service-lifecycle Service (loads, watches,
        // stops watching on graceful shutdown). A product of its own, so an
        // app that does not use it neither builds nor links ServiceLifecycle.
        .library(name: "BloodMagicServiceLifecycle", targets: ["BloodMagicServiceLifecycle"]),
        // Swift Testing's `.registry { ... }` trait: each test its own
        // task-local registry layered over the app's. A product of its own,
        // so an app links neither it nor Testing.
        .library(name: "BloodMagicTesting", targets: ["BloodMagicTesting"]),
        .executable(name: "bmlua", targets: ["bmlua"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // 1.11: LogHandler.log(event:), which the tools' handler implements.
        .package(url: "https://github.com/apple/swift-log", from: "1.11.0"),
        // `swift package generate-documentation` builds the DocC catalogs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // Only BloodMagicServiceLifecycle depends on it.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // liblua5.4 from the system, and a header (CLua.h) that re-declares
        // Lua's API macros as functions Swift can call.
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [
                .apt(["liblua5.4-dev"]),
                .brew(["lua"]),
            ]
        ),
        // The host's C: limits, allocator and count hook, trampolines,
        // library opening, confined `require`, exposed objects, the
        // resolution cache, and the sandbox's own library functions (a
        // pattern matcher, the table loops, finalizers) that charge their
        // work to the state's budgets. One header per part in include/;
        // they include ../CLua/CLua.h.
        .target(
            name: "CLuaHost",
            dependencies: ["CLua"],
            cSettings: [.headerSearchPath("../CLua")]
        ),
        // The spell engine. Nothing in it imports CLua.
        .target(
            name: "BloodMagic",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The Lua side. The Lua half of the `bm` module is a real Lua file,
        // embedded into the binary at build time (no file to find at run time).
        .target(
            name: "BloodMagicLua",
            dependencies: [
                "BloodMagic",
                "CLua",
                "CLuaHost",
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [
                // The prelude, one chunk in six parts (BMPreludeChunk.swift joins them).
                .embedInCode("BMModule/Prelude/bm1_definitions.lua"),
                .embedInCode("BMModule/Prelude/bm2_registry.lua"),
                .embedInCode("BMModule/Prelude/bm3_spells.lua"),
                .embedInCode("BMModule/Prelude/bm4_resolution.lua"),
                .embedInCode("BMModule/Prelude/bm5_classes.lua"),
                .embedInCode("BMModule/Prelude/bm6_api.lua"),
                // The Lua half of ScriptChecker (stand-ins, dry-run helpers).
                .embedInCode("BMModule/bm_check.lua"),
                // The API description for tools, loaded only when asked (ScriptHost.apiDescription).
                .embedInCode("BMModule/bm_api.lua"),
            ]
        ),
        // The test trait (imports Testing; only test targets depend on it).
        .target(
            name: "BloodMagicTesting",
            dependencies: ["BloodMagic"]
        ),
        // ScriptHostService: the Service a server's ServiceGroup runs.
        .target(
            name: "BloodMagicServiceLifecycle",
            dependencies: [
                "BloodMagicLua",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "bmlua",
            dependencies: [
                "BloodMagicLua",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A helper process the preference tests launch to check that values
        // survive a fresh process and that two processes merge their writes.
        .executableTarget(
            name: "bm-preference-probe",
            dependencies: ["BloodMagic"],
            path: "Tests/PreferenceProbe"
        ),
        // A helper process the live-reload tests send signals to: a host
        // that reloads on SIGHUP, as a server opts in.
        .executableTarget(
            name: "bm-reload-probe",
            dependencies: ["BloodMagicLua"],
            path: "Tests/ReloadProbe"
        ),
        // The feed reader example: its wiring lives in
        // Examples/FeedReader/Scripts/*.lua (an executable target, not a product).
        .executableTarget(
            name: "feedreader",
            dependencies: ["BloodMagicLua"],
            path: "Examples/FeedReader/Sources"
        ),
        // Helpers both test targets use (threads released at once, counters,
        // child processes with a deadline).
        .target(
            name: "TestSupport",
            dependencies: [
                // Lock: the package's ThreadSanitizer-visible Mutex.
                "BloodMagic",
                // CapturedLog: a LogHandler that records events for assertions.
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport"
        ),
        // The fuzz targets, one function per target taking the fuzzer's
        // bytes: the libFuzzer executables of the Fuzz/ package call them
        // (scripts/fuzz), and the tests run the seed corpora through them.
        // Not a product.
        .target(
            name: "BloodMagicFuzzTargets",
            dependencies: ["BloodMagicLua"],
            path: "Fuzz/Targets"
        ),
        .testTarget(
            name: "BloodMagicTests",
            dependencies: [
                "BloodMagic", "TestSupport", "bm-preference-probe",
                // Force injection's typical use: a Logger per container.
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "BloodMagicLuaTests",
            dependencies: [
                "BloodMagicLua", "BloodMagicFuzzTargets", "TestSupport", "bm-reload-probe",
                // Live reload's tests capture what a failed reload logs.
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "BloodMagicTestingTests",
            dependencies: ["BloodMagicTesting", "BloodMagic", "TestSupport"]
        ),
        .testTarget(
            name: "BloodMagicServiceLifecycleTests",
            dependencies: [
                "BloodMagicServiceLifecycle", "BloodMagicLua", "TestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
