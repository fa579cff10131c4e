// swift-tools-version: 6.0
//
// BloodMagic for Swift: property-wrapper spells, a registry of initializers,
// and a safe Lua 5.4 host that lets startup scripts define the wiring.

import PackageDescription

let package = Package(
    name: "BloodMagic",
    platforms: [
        // `Mutex` from the Synchronization module needs macOS 15.
        .macOS(.v15)
    ],
    products: [
        .library(name: "BloodMagic", targets: ["BloodMagic"]),
        .executable(name: "bmlua", targets: ["bmlua"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // liblua5.4 from the system, plus a C shim header that re-declares
        // Lua's API macros as functions and holds the error-raising trampolines.
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [
                .apt(["liblua5.4-dev"]),
                .brew(["lua"]),
            ]
        ),
        .target(
            name: "BloodMagic",
            dependencies: [
                "CLua",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "bmlua",
            dependencies: [
                "BloodMagic",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A helper process the preference tests launch to check that values
        // survive a fresh process and that two processes merge their writes.
        .executableTarget(
            name: "bm-preference-probe",
            dependencies: ["BloodMagic"]
        ),
        // The feed reader example: its wiring lives in
        // Examples/FeedReader/Scripts/*.lua (an executable target, not a product).
        .executableTarget(
            name: "feedreader",
            dependencies: ["BloodMagic"],
            path: "Examples/FeedReader/Sources"
        ),
        // The fuzz targets, one function per target taking the fuzzer's
        // bytes: the libFuzzer executables of the Fuzz/ package call them
        // (scripts/fuzz), and the tests run the seed corpora through them.
        // Not a product.
        .target(
            name: "BloodMagicFuzzTargets",
            dependencies: ["BloodMagic"]
        ),
        .testTarget(
            name: "BloodMagicTests",
            dependencies: ["BloodMagic", "BloodMagicFuzzTargets", "bm-preference-probe"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
