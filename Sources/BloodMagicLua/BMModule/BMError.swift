/// An error raised by a `bm` function; the script's position is put in front.
struct BMError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
