import Foundation

// Default construction for the standard types people put behind `@Lazy`:
// an empty collection, an empty string, zero, false, nil. Without these,
// `@Lazy var items: [String]` compiles and then fails on its first read.

extension Array: DefaultConstructible {}
extension Dictionary: DefaultConstructible {}
extension Set: DefaultConstructible {}
extension ContiguousArray: DefaultConstructible {}
extension String: DefaultConstructible {}
extension Substring: DefaultConstructible {}
extension Data: DefaultConstructible {}
extension Bool: DefaultConstructible {}
extension Int: DefaultConstructible {}
extension Int8: DefaultConstructible {}
extension Int16: DefaultConstructible {}
extension Int32: DefaultConstructible {}
extension Int64: DefaultConstructible {}
extension UInt: DefaultConstructible {}
extension UInt8: DefaultConstructible {}
extension UInt16: DefaultConstructible {}
extension UInt32: DefaultConstructible {}
extension UInt64: DefaultConstructible {}
extension Double: DefaultConstructible {}
extension Float: DefaultConstructible {}

extension Optional: DefaultConstructible {
    /// nil: an optional's default value.
    public init() { self = nil }
}
