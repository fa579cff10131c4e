// Two nested types with the same short name (`Message`), for the tests of
// type identity in both test targets (issue 12, item 2): the registry tells
// them apart, and scripts name them by qualified names.

/// The incoming side: `Inbox.Message`.
public enum Inbox {
    /// A message, "in" unless told.
    public final class Message {
        /// What it says.
        public let text: String
        /// A message saying `text`.
        public init(_ text: String = "in") { self.text = text }
    }
}

/// The outgoing side: `Outbox.Message`, the same short name.
public enum Outbox {
    /// A message, "out" unless told.
    public final class Message {
        /// What it says.
        public let text: String
        /// A message saying `text`.
        public init(_ text: String = "out") { self.text = text }
    }
}
