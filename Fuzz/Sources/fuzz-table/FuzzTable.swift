// The libFuzzer executable of the `table` target (FuzzTargets.decodeTable), built with
// -sanitize=fuzzer,address by scripts/fuzz.
import BloodMagicFuzzTargets
import FuzzDriver

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
enum FuzzTable {
    static func main() {
        exit(runLibFuzzer { data, size in FuzzTargets.libFuzzerInput(data, size, FuzzTargets.decodeTable) })
    }
}
