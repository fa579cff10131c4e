/// An error the reader reports as one line on standard error.
struct FeedReaderError: Error, CustomStringConvertible {
    /// The message, without a program-name prefix.
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
