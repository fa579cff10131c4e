// swift-tools-version: 6.0
//
// Release-mode benchmarks for BloodMagic. A separate package so that
// library users never download benchmark dependencies (Swinject is only
// needed here, as the baseline for cold resolution, and swift-dependencies
// beside it).
//
// Run all of them with `scripts/bench` from the project root.

import PackageDescription

/// What the Lua benchmarks that measure against a C baseline depend on.
let luaBenchmarkDependencies: [Target.Dependency] = [
    "BenchSupport", "CLuaBench", .product(name: "BloodMagicLua", package: "BloodMagic"),
]

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "BloodMagic", path: ".."),
        .package(url: "https://github.com/Swinject/Swinject", from: "2.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-dependencies", exact: "1.17.1"),
    ],
    targets: [
        // A small, generic harness: rounds, best/median ns per operation,
        // a table, and ratios against a baseline measured in the same run.
        .target(name: "BenchSupport", dependencies: ["BenchCallgrind"]),
        // Callgrind's client requests (collection on and off around one
        // measured round), for instruction counts of single cases.
        .target(name: "BenchCallgrind"),
        // Lua's C API for the C baselines of the Lua host benchmarks.
        .systemLibrary(
            name: "CLuaBench",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"]), .brew(["lua"])]
        ),
        .executableTarget(
            name: "LuaHostBenchmarks",
            dependencies: luaBenchmarkDependencies
        ),
        .executableTarget(
            name: "BMBenchmarks",
            dependencies: luaBenchmarkDependencies
        ),
        // Codable push + decode next to a hand-written C-API push and read
        // of the same struct (issue 17).
        .executableTarget(
            name: "CodableBenchmarks",
            dependencies: luaBenchmarkDependencies
        ),
        .executableTarget(
            name: "LuaBenchmarks",
            dependencies: ["BenchCallgrind", "CLuaBench", .product(name: "BloodMagicLua", package: "BloodMagic")]
        ),
        .executableTarget(name: "StartupBenchmarks"),
        // How long `bmlua check` takes on the feed reader and on 1,000 generated files.
        .executableTarget(
            name: "CheckBenchmarks",
            dependencies: [.product(name: "BloodMagicLua", package: "BloodMagic")]
        ),
        // Live reload: reloading against loading, and reads with a watcher.
        .executableTarget(
            name: "ReloadBenchmarks",
            dependencies: ["BenchSupport", .product(name: "BloodMagicLua", package: "BloodMagic")]
        ),
        // Instruction counts of single spell operations (run under
        // callgrind), for when the machine is too busy for wall time.
        .executableTarget(
            name: "SpellInstructionCounts",
            dependencies: ["BenchSupport", .product(name: "BloodMagic", package: "BloodMagic")]
        ),
        .executableTarget(
            name: "SpellBenchmarks",
            dependencies: [
                "BenchSupport",
                .product(name: "BloodMagic", package: "BloodMagic"),
                .product(name: "Swinject", package: "Swinject"),
                .product(name: "Dependencies", package: "swift-dependencies"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
