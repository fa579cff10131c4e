import Logging

/// Where BloodMagic reports what it cannot hand back to a caller (swift-log;
/// the app chooses the backend with `LoggingSystem.bootstrap`).
package enum Diagnostics {
    /// The library's logger, label `BloodMagic`.
    package static let logger = Logger(label: "BloodMagic")
}
