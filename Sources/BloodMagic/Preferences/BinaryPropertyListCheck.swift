import Foundation

/// Checks a binary property list before Foundation parses it.
///
/// A preference file is input like any other: it may be damaged or made by
/// someone else. Foundation on Linux crashes the process (a null metadata
/// read in the Swift runtime) while bridging a binary property list that
/// holds a set, so every object of a binary file is checked first to be one
/// of the kinds a preference can hold: booleans, integers, reals, dates,
/// data, strings, arrays and dictionaries. Text (XML, old-style) files are
/// left to Foundation.
enum BinaryPropertyListCheck {
    /// Why `data`, a binary property list, cannot be read; nil when it is
    /// not binary or every object is of an allowed kind.
    static func problem(in data: Data) -> String? {
        guard data.starts(with: "bplist".utf8) else { return nil }
        return data.withUnsafeBytes { problem(inBinary: $0) }
    }

    /// The format of `bplist00` files: a header, the objects, a table of
    /// their offsets and a 32-byte trailer locating the table.
    private static func problem(inBinary bytes: UnsafeRawBufferPointer) -> String? {
        let headerSize = 8, trailerSize = 32
        guard bytes.count >= headerSize + trailerSize else { return "a binary property list too short for its trailer" }
        guard bytes[6] == UInt8(ascii: "0"), bytes[7] == UInt8(ascii: "0") else {
            return "a binary property list of an unsupported version"
        }
        let trailer = bytes.count - trailerSize
        let offsetSize = Int(bytes[trailer + 6])
        guard (1...8).contains(offsetSize), (1...8).contains(Int(bytes[trailer + 7])) else {
            return "a binary property list with a damaged trailer"
        }
        let objectCount = bigEndian(bytes, at: trailer + 8, size: 8)
        let tableOffset = bigEndian(bytes, at: trailer + 24, size: 8)
        // The table lies between the objects and the trailer, and holds
        // exactly as many offsets as fit there at most.
        guard tableOffset >= UInt64(headerSize), tableOffset <= UInt64(trailer),
              objectCount >= 1, objectCount <= (UInt64(trailer) - tableOffset) / UInt64(offsetSize)
        else { return "a binary property list with a damaged offset table" }
        for index in 0..<Int(objectCount) {
            let offset = bigEndian(bytes, at: Int(tableOffset) + index * offsetSize, size: offsetSize)
            guard offset >= UInt64(headerSize), offset < tableOffset else {
                return "a binary property list whose object \(index) lies outside its objects"
            }
            let marker = bytes[Int(offset)]
            if !allowed(marker) {
                return "a binary property list holding an object of a kind preferences never hold (marker 0x\(String(marker, radix: 16)))"
            }
        }
        return nil
    }

    /// Whether an object marker is a kind a preference can hold.
    private static func allowed(_ marker: UInt8) -> Bool {
        switch marker >> 4 {
        case 0x0: return marker == 0x08 || marker == 0x09  // false, true
        case 0x1, 0x2: return true  // integer, real
        case 0x3: return marker == 0x33  // date
        case 0x4, 0x5, 0x6: return true  // data, ASCII string, UTF-16 string
        case 0xA, 0xD: return true  // array, dictionary
        default: return false  // sets, UIDs, null, fill, unknown kinds
        }
    }

    /// The unsigned big-endian integer of `size` bytes at `offset`.
    private static func bigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for byte in bytes[offset..<(offset + size)] {
            value = value << 8 | UInt64(byte)
        }
        return value
    }
}
