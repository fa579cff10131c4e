// swift-tools-version: 6.0
//
// libFuzzer executables for BloodMagic, one per fuzz target. A separate
// package because they are built with `-sanitize=fuzzer,address` and call
// libFuzzer's driver, which an ordinary `swift build` of the project could
// not link.
//
// Build and run them with `scripts/fuzz [TARGET] [SECONDS]` from the project
// root. The targets themselves are the main package's
// `BloodMagicFuzzTargets` (Fuzz/Targets, linked here as
// Sources/BloodMagicFuzzTargets, a symlink, since a package can only use another package's products), which
// the test suite also runs over the seed corpora in Corpus/.

import PackageDescription

let package = Package(
    name: "Fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "BloodMagic", path: ".."),
    ],
    targets: [
        .target(
            name: "BloodMagicFuzzTargets",
            dependencies: [.product(name: "BloodMagicLua", package: "BloodMagic")]
        ),
        // libFuzzer's driver entry, and the Swift call that starts it.
        .systemLibrary(name: "CLibFuzzer"),
        .target(name: "FuzzDriver", dependencies: ["CLibFuzzer"]),
        .executableTarget(name: "fuzz-script", dependencies: ["BloodMagicFuzzTargets", "FuzzDriver"]),
        .executableTarget(name: "fuzz-table", dependencies: ["BloodMagicFuzzTargets", "FuzzDriver"]),
        .executableTarget(name: "fuzz-plist", dependencies: ["BloodMagicFuzzTargets", "FuzzDriver"]),
    ],
    swiftLanguageModes: [.v6]
)
