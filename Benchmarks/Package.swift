// swift-tools-version: 6.0
//
// Release-mode micro benchmarks for BloodMagic's Lua bridge. Run with
// `swift run -c release LuaBenchmarks` from this directory.

import PackageDescription

let package = Package(
    name: "BloodMagicBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "BloodMagic", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "LuaBenchmarks",
            dependencies: [.product(name: "BloodMagic", package: "BloodMagic")]
        )
    ],
    swiftLanguageModes: [.v6]
)
