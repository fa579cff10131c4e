@_spi(BloodMagicInternals) import BloodMagic
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The display form of the chunk name last asked for.
///
/// Every registration from a script records the `file:line` it was made at,
/// and a script makes its registrations from one chunk: turning the same
/// chunk name into text each time (validating or escaping its bytes) was a
/// tenth of what a `bm.initializer` costs. The cache holds one name, keyed
/// by its bytes (compared in full, so a name that merely reuses an address
/// is never mistaken for the one before).
final class LuaChunkNameCache: Sendable {
    /// The process's cache.
    static let shared = LuaChunkNameCache()

    /// Names longer than this are not kept (a hostile chunk name can be
    /// long; comparing it each time would cost more than it saves).
    static let longestKept = 512

    /// The most bytes of a chunk name a location shows. A script names its
    /// chunks (`load(code, "@" .. name)`), and every registration keeps the
    /// `file:line` it was made at: a longer name is shown as `...` and its
    /// last bytes, as Lua cuts a `short_src`, so that what a registration
    /// keeps (charged to the script's memory budget with it) stays small
    /// whatever the name. Longer than any real path's display.
    static let longestShown = 960

    private let last = Lock<(bytes: [UInt8], text: String, prefix: String)?>(nil)

    /// `bytes` as text, invalid UTF-8 escaped (see `LuaDisplayText`).
    func displayName(_ bytes: UnsafeRawBufferPointer) -> String {
        entry(bytes).text
    }

    /// `file:line` for a chunk named `bytes` (`file` as ``displayName(_:)``).
    func location(_ bytes: UnsafeRawBufferPointer, line: Int) -> String {
        Self.appending(line, to: entry(bytes).prefix)
    }

    /// `bytes` as text (see ``displayName(_:)``), at most ``longestShown``
    /// bytes: a longer name is `...` and as much of its end as fits, cut
    /// where a character starts. Reads at most ``longestShown`` bytes of
    /// the name, however long it is.
    static func shown(_ bytes: UnsafeRawBufferPointer) -> String {
        guard bytes.count > longestShown else { return LuaDisplayText.escaping(bytes) }
        let room = longestShown - 3
        var from = bytes.count - room
        // A cut inside a character starts at the next one.
        while from < bytes.count, bytes[from] & 0xC0 == 0x80 { from += 1 }
        // Escaping makes a byte up to four ("\\255"): cut the text again.
        let escaped = Array(LuaDisplayText.escaping(bytes[from...]).utf8)
        var start = max(0, escaped.count - room)
        while start < escaped.count, escaped[start] & 0xC0 == 0x80 { start += 1 }
        return "..." + String(decoding: escaped[start...], as: UTF8.self)
    }

    /// `prefix` followed by the decimal digits of `number`, made as one
    /// string (concatenating `String(number)` made two, and appended
    /// through the generic path: a third of a registration's `file:line`).
    static func appending(_ number: Int, to prefix: String) -> String {
        let magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 bytes
        let count = withUnsafeMutableBytes(of: &digits) { raw -> Int in
            var position = raw.count
            var rest = magnitude
            repeat {
                position -= 1
                raw[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            if number < 0 {
                position -= 1
                raw[position] = UInt8(ascii: "-")
            }
            return raw.count - position
        }
        return prefix.utf8.withContiguousStorageIfAvailable { head in
            withUnsafeBytes(of: &digits) { raw in
                String(unsafeUninitializedCapacity: head.count + count) { buffer in
                    _ = buffer.initialize(from: head)
                    let tail = UnsafeRawBufferPointer(rebasing: raw[(raw.count - count)...])
                    for (offset, byte) in tail.enumerated() { buffer[head.count + offset] = byte }
                    return head.count + count
                }
            }
        } ?? prefix + String(number)
    }

    private func entry(_ bytes: UnsafeRawBufferPointer) -> (text: String, prefix: String) {
        guard bytes.count > 0, bytes.count <= Self.longestKept, let base = bytes.baseAddress else {
            let text = Self.shown(bytes)
            return (text, text + ":")
        }
        let hit = last.withLock { last -> (text: String, prefix: String)? in
            guard let last, last.bytes.count == bytes.count else { return nil }
            let same = last.bytes.withUnsafeBytes { memcmp($0.baseAddress!, base, bytes.count) == 0 }
            return same ? (last.text, last.prefix) : nil
        }
        if let hit { return hit }
        let text = Self.shown(bytes)
        let made = (bytes: Array(bytes), text: text, prefix: text + ":")
        last.withLock { $0 = made }
        return (made.text, made.prefix)
    }
}
