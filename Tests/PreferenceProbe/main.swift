// A helper process for the preference tests: it writes and reads
// preferences through the real UserDefaults-backed store, so the tests can
// check that values survive a fresh process (and a crash right after the
// write) and that two processes do not lose each other's writes.
//
//   bm-preference-probe write <suite> <key> <int|string|bool|double> <value> [--crash]
//   bm-preference-probe write-many <suite> <prefix> <count>
//   bm-preference-probe read <suite> <key>...
//   bm-preference-probe nickname-set <suite> <nickname> [--crash]
//   bm-preference-probe nickname-get <suite>
//   bm-preference-probe path <suite>
//   bm-preference-probe fixture-write <suite> [--file PATH]   write every kind of value (see `fixture`)
//   bm-preference-probe fixture-dump <suite> [--file PATH]    print what the store holds for them, exactly
//   bm-preference-probe fixture-expect <suite>                print the fixture itself the same way
//   bm-preference-probe hammer <suite> [--file PATH]          rewrite one large key until killed
//
// `--file PATH` uses a PropertyListFilePreferenceStore at PATH instead of
// the UserDefaults store of <suite>.
import BloodMagic
import Foundation

final class Settings {
    static let store = UserDefaultsPreferenceStore(suiteName: CommandLine.arguments[2])
    @Preference(store: Settings.store) var nickname: String?
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: bm-preference-probe <command> <suite> ...") }
let store: any PreferenceStore = {
    if let index = arguments.firstIndex(of: "--file"), index + 1 < arguments.count {
        return PropertyListFilePreferenceStore(fileURL: URL(fileURLWithPath: arguments[index + 1]))
    }
    return UserDefaultsPreferenceStore(suiteName: arguments[2])
}()
let crash = arguments.contains("--crash")

/// A Codable value, stored archived as JSON data.
struct Profile: Codable, Equatable {
    var name: String
    var scores: [Double]
    var joined: Date
    var tags: [String: Int]
}

/// One value of every kind, with the edge values that stores lose.
func fixture() throws -> [(String, PreferenceValue)] {
    let profile = Profile(
        name: "Zoë 🧙", scores: [0.1, -0.0, 0x1p-1030, 1.7976931348623157e308],
        joined: Date(timeIntervalSinceReferenceDate: 123_456_789.987_654_321), tags: ["a": Int.min, "": Int.max])
    return [
        ("int.max", .int(Int.max)),
        ("int.min", .int(Int.min)),
        ("int.zero", .int(0)),
        ("bool.true", .bool(true)),
        ("bool.false", .bool(false)),
        ("double.nan", .double(.nan)),
        ("double.inf", .double(.infinity)),
        ("double.-inf", .double(-.infinity)),
        ("double.-0", .double(-0.0)),
        ("double.subnormal", .double(.leastNonzeroMagnitude)),
        ("double.subnormal.big", .double(Double(bitPattern: 0x000F_FFFF_FFFF_FFFF))),
        ("double.max", .double(.greatestFiniteMagnitude)),
        ("double.third", .double(1.0 / 3.0)),
        ("double.integral", .double(2.0)),
        ("string.empty", .string("")),
        ("string.unicode", .string("héllo — 日本語 🎉 e\u{301} \u{10FFFF}")),
        ("", .string("the empty key")),
        ("ключ 🔑", .string("a non-ASCII key")),
        ("data.empty", .data(Data())),
        ("data.bytes", .data(Data((0...255).map { UInt8($0) }))),
        ("date.fraction", .date(Date(timeIntervalSinceReferenceDate: 1_234_567.123_456_789))),
        ("date.negative", .date(Date(timeIntervalSinceReferenceDate: -987_654_321.000_001))),
        ("date.distantFuture", .date(.distantFuture)),
        ("array.nested", .array([.array([.int(1), .string("a")]), .array([]), .dictionary(["k": .double(0.5)])])),
        ("dict.nested", .dictionary([
            "inner": .dictionary(["deep": .array([.date(Date(timeIntervalSinceReferenceDate: 0.25)), .bool(false)])]),
            "": .string("empty key inside"),
        ])),
        ("codable", try PreferenceCoding.encode(profile, key: "codable")!),
    ]
}

/// A value written so that two values print alike only when they are the
/// same bit for bit: doubles and dates as their bits, strings and data as
/// their scalars and bytes.
func exact(_ value: PreferenceValue) -> String {
    func text(_ string: String) -> String {
        "\"" + string.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: ".") + "\""
    }
    switch value {
    case .bool(let flag): return "bool:\(flag)"
    case .int(let number): return "int:\(number)"
    case .double(let number): return "double:" + String(number.bitPattern, radix: 16)
    case .string(let string): return "string:" + text(string)
    case .data(let data): return "data:" + data.map { String(format: "%02x", $0) }.joined()
    case .date(let date): return "date:" + String(date.timeIntervalSinceReferenceDate.bitPattern, radix: 16)
    case .array(let values): return "[" + values.map(exact).joined(separator: ", ") + "]"
    case .dictionary(let values):
        let keys = values.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
        return "{" + keys.map { text($0) + ": " + exact(values[$0]!) }.joined(separator: ", ") + "}"
    }
}

do {
    switch arguments[1] {
    case "write":
        let key = arguments[3], kind = arguments[4], text = arguments[5]
        let value: PreferenceValue
        switch kind {
        case "int": value = .int(Int(text)!)
        case "bool": value = .bool(text == "true")
        case "double": value = .double(Double(text)!)
        default: value = .string(text)
        }
        try store.setValue(value, forKey: key)
    case "write-many":
        let prefix = arguments[3], count = Int(arguments[4])!
        for index in 0..<count {
            try store.setValue(.int(index), forKey: "\(prefix)\(index)")
        }
    case "read":
        for key in arguments[3...] {
            print("\(key)=\(store.value(forKey: key).map { "\($0.typeName):\($0)" } ?? "missing")")
        }
    case "nickname-set":
        Settings().nickname = arguments[3]
    case "nickname-get":
        print(Settings().nickname ?? "nil")
    case "path":
        print((store as? UserDefaultsPreferenceStore)?.fileURL?.path ?? "")
    case "fixture-write":
        for (key, value) in try fixture() { try store.setValue(value, forKey: key) }
    case "fixture-dump":
        for (key, _) in try fixture() {
            print("\(exact(.string(key))) = \(store.value(forKey: key).map(exact) ?? "missing")")
        }
    case "fixture-expect":
        for (key, value) in try fixture() { print("\(exact(.string(key))) = \(exact(value))") }
    case "hammer":
        // Large enough that a write takes a while: a kill lands mid-write.
        let payload = PreferenceValue.string(String(repeating: "bloodmagic ", count: 40_000))
        var round = 0
        while true {
            try store.setValue(payload, forKey: "hammer")
            try store.setValue(.int(round), forKey: "hammer.round")
            round += 1
        }
    default:
        fail("unknown command \(arguments[1])")
    }
} catch {
    fail("\(error)")
}
if crash {
    // Die without any exit-time flushing: what was written must already be on disk.
    abort()
}
