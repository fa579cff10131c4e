import Foundation

/// Builds `Decodable` values from `<TypeName>.json` files in a directory
/// (or a bundle's resources), the shipped @Partial template provider.
public struct JSONTemplateProvider: PartialTemplateProvider {
    /// The directory holding the templates.
    public let directory: URL

    /// Templates in `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// Templates in `bundle`'s resources, optionally in `subdirectory`.
    public init(bundle: Bundle, subdirectory: String? = nil) {
        var base = bundle.resourceURL ?? bundle.bundleURL
        if let subdirectory { base.appendPathComponent(subdirectory, isDirectory: true) }
        self.directory = base
    }

    /// The file for `type`: `<directory>/<TypeName>.json`.
    public func fileURL(for type: SpellTypeKey) -> URL {
        directory.appendingPathComponent(fileName(for: type))
    }

    /// `<TypeName>.json`, or `A&B.json` for a protocol set.
    private func fileName(for type: SpellTypeKey) -> String {
        let name = type.protocols?.joined(separator: "&") ?? type.name
        return "\(name).json"
    }

    /// The path of the file for `type`.
    public func templateLocation(for type: SpellTypeKey) -> String {
        fileURL(for: type).path
    }

    /// Decodes `valueType` from its file; nil if there is no such file.
    ///
    /// Type names may come from scripts, so the file is found as
    /// `ConfinedPath` finds it: only for a name that is a plain file name
    /// (no `/`, no `..`), and only when its real path lies in ``directory``.
    public func instantiate(_ valueType: Any.Type, type: SpellTypeKey, sender: AnyObject) throws -> Any? {
        let url = fileURL(for: type)
        guard case .found(let path) = ConfinedPath.resolve(fileName(for: type), in: directory.path) else { return nil }
        guard let decodable = valueType as? any Decodable.Type else {
            throw SpellError.templateInvalid(type: type.name, file: url.path, reason: "\(type.name) is not Decodable")
        }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try JSONDecoder().decode(decodable, from: data)
        } catch {
            throw SpellError.templateInvalid(type: type.name, file: url.path, reason: "\(error)")
        }
    }
}
