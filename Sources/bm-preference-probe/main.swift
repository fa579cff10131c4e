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
let store = UserDefaultsPreferenceStore(suiteName: arguments[2])
let crash = arguments.contains("--crash")

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
        print(store.fileURL?.path ?? "")
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
