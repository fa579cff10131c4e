// The libFuzzer executable of the `script` target (FuzzTargets.runScript), built with
// -sanitize=fuzzer,address by scripts/fuzz.
import BloodMagicFuzzTargets
import FuzzDriver

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
enum FuzzScript {
    static func main() {
        exit(runLibFuzzer { data, size in FuzzTargets.libFuzzerInput(data, size, FuzzTargets.runScript) })
    }
}
