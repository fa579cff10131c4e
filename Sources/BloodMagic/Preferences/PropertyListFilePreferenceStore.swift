import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A preference store in one property-list file at a path you choose
/// (`bmlua --preferences PATH`).
///
/// The file is written as a binary property list, which keeps every value
/// exactly (XML would round dates to the second); any property-list format
/// is read.
///
/// Every write takes an exclusive `flock` on `<path>.lock`, re-reads the file,
/// changes one key, writes a temporary file, `fsync`s it and renames it over
/// the old one, then `fsync`s the directory. So a write is durable when
/// `setValue` returns, a crash leaves either the old or the new file, and two
/// processes writing different keys never lose each other's writes. Reads
/// take the lock too and always see the file as it is.
public final class PropertyListFilePreferenceStore: PreferenceStore {
    /// The property-list file.
    public let fileURL: URL
    private let processLock = Mutex(())

    /// A store in the file at `fileURL` (created on the first write).
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// The value stored under `key`, or nil (also when the file is missing or unreadable).
    public func value(forKey key: String) -> PreferenceValue? {
        (try? withLock { try read() })?[key]
    }

    /// Stores `value` under `key` (nil removes it), durably.
    public func setValue(_ value: PreferenceValue?, forKey key: String) throws {
        try withLock {
            var values = try read()
            values[key] = value
            try write(values)
        }
    }

    /// Everything in the file.
    public var allValues: [String: PreferenceValue] {
        (try? withLock { try read() }) ?? [:]
    }

    private func read() throws -> [String: PreferenceValue] {
        guard let data = try? Data(contentsOf: fileURL), !data.isEmpty else { return [:] }
        if let problem = BinaryPropertyListCheck.problem(in: data) {
            throw SpellError.preferenceEncodingFailed(
                key: fileURL.path, type: "property list", reason: "the file is not a property list: \(problem)")
        }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw SpellError.preferenceEncodingFailed(
                key: fileURL.path, type: "property list", reason: "the file is not a property list: \(error.localizedDescription)")
        }
        guard case .dictionary(let values)? = PreferenceValue(propertyListObject: object) else {
            throw SpellError.preferenceEncodingFailed(
                key: fileURL.path, type: "property list", reason: "the file does not hold a dictionary")
        }
        return values
    }

    private func write(_ values: [String: PreferenceValue]) throws {
        let object = values.mapValues(\.propertyListObject)
        // Binary, not XML: XML keeps dates to the second and cannot hold
        // control characters, so values would not come back as stored.
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let directory = fileURL.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(fileURL.lastPathComponent).\(getpid()).tmp")
        try data.write(to: temporary)
        FileLocking.sync(temporary.path)
        guard rename(temporary.path, fileURL.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw SpellError.preferenceEncodingFailed(key: fileURL.path, type: "property list", reason: reason)
        }
        FileLocking.sync(directory.path)
    }

    private func withLock<T>(_ body: () throws -> T) throws -> T {
        var result: T?
        try processLock.withLock { _ in
            result = try FileLocking.withExclusiveLock(beside: fileURL, body)
        }
        return result!
    }
}
