// The libFuzzer executable of the `plist` target (FuzzTargets.readPropertyList), built with
// -sanitize=fuzzer,address by scripts/fuzz.
import BloodMagicFuzzTargets
import FuzzDriver

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
enum FuzzPlist {
    static func main() {
        exit(runLibFuzzer { data, size in FuzzTargets.libFuzzerInput(data, size, FuzzTargets.readPropertyList) })
    }
}
