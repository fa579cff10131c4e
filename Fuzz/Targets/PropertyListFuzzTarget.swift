import BloodMagicLua
import Foundation

extension FuzzTargets {
    /// Target `plist`: the bytes are the file of a
    /// ``PropertyListFilePreferenceStore``, which reads all its values and
    /// one key.
    ///
    /// Invariants: reading ends with values or none (never a crash, whatever
    /// the nesting, encoding or truncation); a value read by key is the one
    /// listed by `allValues`; and what was read survives a round trip through
    /// the property-list form the store writes (binary) unchanged.
    @Sendable
    public static func readPropertyList(_ bytes: UnsafeRawBufferPointer) -> FuzzResult {
        var result = FuzzResult(outcome: "ok")
        FuzzScratch.withFile(containing: bytes, suffix: ".plist") { file in
            defer { try? FileManager.default.removeItem(atPath: file.path + ".lock") }
            let store = PropertyListFilePreferenceStore(fileURL: file)
            let values = store.allValues
            result.outcome = "\(values.count) values"
            if let (key, value) = values.min(by: { $0.key < $1.key }) {
                let byKey = store.value(forKey: key)
                result.check(byKey.map { same($0, value) } ?? false, "value(forKey: \(key)) read \(String(describing: byKey)), allValues \(value)")
            }
            do {
                let object = values.mapValues(\.propertyListObject)
                let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
                let reread = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
                let again = PreferenceValue(propertyListObject: reread)
                result.check(
                    again.map { same($0, .dictionary(values)) } ?? false,
                    "the values changed on a round trip through the store's format: \(values) became \(String(describing: again))")
            } catch {
                result.violations.append("values the store read could not be written back: \(error)")
            }
        }
        return result
    }

    /// Equal values, where a NaN equals a NaN. An explicit stack rather
    /// than recursion, so that deep values cannot overflow the check itself.
    static func same(_ first: PreferenceValue, _ second: PreferenceValue) -> Bool {
        var pending = [(first, second)]
        while let (a, b) = pending.popLast() {
            switch (a, b) {
            case (.double(let x), .double(let y)):
                guard x == y || (x.isNaN && y.isNaN) else { return false }
            case (.array(let xs), .array(let ys)):
                guard xs.count == ys.count else { return false }
                pending.append(contentsOf: zip(xs, ys))
            case (.dictionary(let xs), .dictionary(let ys)):
                guard xs.count == ys.count else { return false }
                for (key, x) in xs {
                    guard let y = ys[key] else { return false }
                    pending.append((x, y))
                }
            default:
                guard a == b else { return false }
            }
        }
        return true
    }
}
