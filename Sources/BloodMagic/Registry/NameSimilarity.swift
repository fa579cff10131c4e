/// How close two names are, for the "closest" hints of error messages and
/// tools.
///
/// The names come from scripts and command lines (any length, any number
/// of them), and a hint is computed on a miss that a script can repeat, so
/// every function here is linear in the bytes it is given: a hint costs
/// O(total bytes of the names compared), never the product of two names'
/// lengths.
public enum NameSimilarity {
    /// The edit distance between `a` and `b` (insertions, deletions and
    /// substitutions of bytes) when it is at most `limit`, else nil.
    ///
    /// O((|a| + 1) · (2 · `limit` + 1)): only the band of the table within
    /// `limit` of its diagonal can hold a distance that small, and the walk
    /// stops as soon as a whole row of the band is past `limit`. Names whose
    /// lengths differ by more than `limit` are answered at once.
    public static func editDistance(_ a: [UInt8], _ b: [UInt8], atMost limit: Int) -> Int? {
        let n = a.count, m = b.count
        guard limit >= 0, abs(n - m) <= limit else { return nil }
        if n == 0 || m == 0 { return max(n, m) }
        let past = limit + 1  // any distance beyond the limit
        // Row i holds columns max(1, i - limit)...min(m, i + limit); a cell
        // outside the band reads as `past`.
        var previous = [Int](repeating: past, count: m + 2)
        var current = [Int](repeating: past, count: m + 2)
        for j in 0...min(m, limit) { previous[j] = j }
        for i in 1...n {
            let low = max(1, i - limit), high = min(m, i + limit)
            current[low - 1] = low == 1 && i <= limit ? i : past
            var best = current[low - 1]
            let byte = a[i - 1]
            for j in low...high {
                var cell = previous[j - 1] + (byte == b[j - 1] ? 0 : 1)
                cell = min(cell, previous[j] + 1, current[j - 1] + 1)
                current[j] = min(cell, past)
                best = min(best, current[j])
            }
            current[high + 1] = past
            if best > limit { return nil }
            swap(&previous, &current)
        }
        return previous[m] <= limit ? previous[m] : nil
    }

    /// A name prepared to be looked for inside other names: its bytes and
    /// the table that lets a search never go back in the text searched
    /// (Knuth–Morris–Pratt), made in O(|name|).
    public struct Pattern: Sendable {
        /// The bytes looked for.
        public let bytes: [UInt8]
        /// For each prefix, the length of its longest proper border.
        private let borders: [Int]

        /// Prepares `bytes`.
        public init(_ bytes: [UInt8]) {
            self.bytes = bytes
            var borders = [Int](repeating: 0, count: bytes.count)
            var length = 0
            var index = 1
            while index < bytes.count {
                if bytes[index] == bytes[length] {
                    length += 1
                    borders[index] = length
                    index += 1
                } else if length > 0 {
                    length = borders[length - 1]
                } else {
                    index += 1
                }
            }
            self.borders = borders
        }

        /// Whether the pattern occurs in `text`: O(|text|).
        public func occurs(in text: [UInt8]) -> Bool {
            if bytes.isEmpty { return true }
            if bytes.count > text.count { return false }
            var matched = 0
            for byte in text {
                while matched > 0 && bytes[matched] != byte { matched = borders[matched - 1] }
                if bytes[matched] == byte {
                    matched += 1
                    if matched == bytes.count { return true }
                }
            }
            return false
        }
    }
}

extension NameSimilarity {
    /// `bytes` with ASCII capitals lowered (other bytes kept): both sides of
    /// a comparison are lowered the same way, in one pass.
    static func lowered(_ bytes: some Collection<UInt8>) -> [UInt8] {
        bytes.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }
    }
}

extension SpellTypeKey {
    /// The last component of each name, as bytes of the names themselves
    /// (no copy): what the closest ranking compares, once lowered.
    var lastComponents: [Substring.UTF8View] {
        if let swiftNames {
            return (swiftNames.protocols ?? [swiftNames]).map { Substring($0.short).utf8 }
        }
        return (protocols ?? [name]).map { name in
            let utf8 = name.utf8
            let start = utf8.lastIndex(of: UInt8(ascii: ".")).map { utf8.index(after: $0) } ?? utf8.startIndex
            return Substring(name)[start...].utf8
        }
    }

    /// ``lastComponents``, ASCII-lowered, sorted, without repeats
    /// (``shortNames`` as bytes, made in one pass over the names).
    var comparedNames: [[UInt8]] {
        Self.compared(lastComponents)
    }

    /// `components` lowered, sorted, without repeats.
    static func compared(_ components: [Substring.UTF8View]) -> [[UInt8]] {
        var names = components.map { NameSimilarity.lowered($0) }
        if names.count > 1 {
            names.sort { $0.lexicographicallyPrecedes($1) }
            var unique: [[UInt8]] = []
            for name in names where unique.last != name { unique.append(name) }
            names = unique
        }
        return names
    }
}
