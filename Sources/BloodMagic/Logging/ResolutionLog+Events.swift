import Logging

// The events a registry reports (see ResolutionLog). Each is called after a
// `mayReport` check at a cold step of a resolution, and builds its message
// only when logging is on.

extension ResolutionLog {
    /// `container.property`, of type `type`, was served by the initializer
    /// `record` (a singleton's shared value, or an instance's new one).
    @usableFromInline
    func served(container: String, property: String, type: String, by record: InitializerRecord) {
        debug(
            .served,
            "served \(Self.target(container: container, property: property, type: type)) by the \(record.scope == .singleton ? "singleton" : "initializer") registered at \(record.source) (\(record.container), \(record.scope) scope)",
            [
                "container": .string(container), "property": .string(property), "type": .string(type),
                "kind": .string(record.scope == .singleton ? "singleton" : "initializer"),
                "source": .string(record.source),
            ])
    }

    /// `container.property` was served by something other than a registered
    /// initializer: a resolver, a template, default construction, or nil.
    func served(container: String, property: String, type: String, by other: OtherServer) {
        var metadata: Logger.Metadata = [
            "container": .string(container), "property": .string(property), "type": .string(type),
            "kind": .string(other.kind),
        ]
        if let source = other.source { metadata["source"] = .string(source) }
        debug(.served, "served \(Self.target(container: container, property: property, type: type)) \(other.phrase)", metadata)
    }

    /// "Screen.loader (Loader)", or "Loader (no container)" for a resolution
    /// without one (`bm.resolve("Loader")`).
    static func target(container: String, property: String, type: String) -> String {
        container == "(none)" ? "\(type) (no container)" : "\(container).\(property) (\(type))"
    }

    /// What served a property when no registered initializer did.
    enum OtherServer {
        /// The resolver registered at the source.
        case resolver(String)
        /// A partial template, at the location given.
        case template(String)
        /// `init()` (`DefaultConstructible`) or the wrapper's own default.
        case defaultConstruction
        /// Nil, for an Optional with nothing registered.
        case none

        var kind: String {
            switch self {
            case .resolver: return "resolver"
            case .template: return "template"
            case .defaultConstruction: return "default"
            case .none: return "nil"
            }
        }

        var source: String? {
            switch self {
            case .resolver(let source), .template(let source): return source
            case .defaultConstruction, .none: return nil
            }
        }

        var phrase: String {
            switch self {
            case .resolver(let source): return "by the resolver registered at \(source)"
            case .template(let location): return "from the template \(location)"
            case .defaultConstruction: return "by default construction (nothing registered)"
            case .none: return "with nil (nothing registered)"
            }
        }
    }

    /// A singleton's value was created by the initializer `record`.
    func singletonCreated(by record: InitializerRecord) {
        debug(
            .singletonCreated,
            "created singleton \(record.type.name) with the initializer registered at \(record.source)",
            ["type": .string(record.type.name), "source": .string(record.source)])
    }

    /// The hook registered at `source` ran after `container.property` was injected.
    func hookRan(container: String, property: String, source: String) {
        debug(
            .hookRan, "ran the hook registered at \(source) after injecting \(container).\(property)",
            ["container": .string(container), "property": .string(property), "source": .string(source)])
    }

    /// The container's own `propertyInjected(name:value:)` ran.
    func observerRan(container: String, property: String) {
        debug(
            .hookRan, "ran \(container).propertyInjected(name: \"\(property)\") after injecting \(container).\(property)",
            [
                "container": .string(container), "property": .string(property),
                "source": .string("propertyInjected(name:value:)"),
            ])
    }

    /// A preference was read: from the store, or (`stored` false) its default.
    package func preferenceRead(container: String, property: String, key: String, store: any PreferenceStore, stored: Bool) {
        let storeName = PreferenceStoreNames.describe(store)
        debug(
            .preferenceRead,
            "read preference \(container).\(property): key \"\(key)\" in \(storeName) (\(stored ? "stored value" : "not stored: default"))",
            [
                "container": .string(container), "property": .string(property), "key": .string(key),
                "store": .string(storeName), "stored": .stringConvertible(stored),
            ])
    }

    /// A preference was written (`removed`: its key was removed).
    package func preferenceWritten(container: String, property: String, key: String, store: any PreferenceStore, removed: Bool) {
        let storeName = PreferenceStoreNames.describe(store)
        debug(
            .preferenceWrite,
            "\(removed ? "removed" : "wrote") preference \(container).\(property): key \"\(key)\" in \(storeName)",
            [
                "container": .string(container), "property": .string(property), "key": .string(key),
                "store": .string(storeName), "removed": .stringConvertible(removed),
            ])
    }

    /// A script file was loaded (`failure` nil) or failed to, after `duration`.
    package func scriptLoaded(file: String, duration: Duration, registrations: Int, failure: String?) {
        let milliseconds = Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
        let shown = (milliseconds * 100).rounded() / 100
        var metadata: Logger.Metadata = [
            "file": .string(file), "milliseconds": .stringConvertible(shown),
            "registrations": .stringConvertible(registrations),
        ]
        if let failure {
            metadata["error"] = .string(failure)
            debug(.scriptLoaded, "failed to load script \(file) after \(shown) ms: \(failure)", metadata)
        } else {
            let noun = registrations == 1 ? "registration" : "registrations"
            debug(.scriptLoaded, "loaded script \(file) in \(shown) ms (\(registrations) \(noun))", metadata)
        }
    }
}

/// How log messages name a preference store.
package enum PreferenceStoreNames {
    /// The store's own description when it has one (the built-in stores
    /// say "memory", "file PATH", "user defaults DOMAIN"), else its type.
    package static func describe(_ store: any PreferenceStore) -> String {
        if let described = store as? any CustomStringConvertible { return described.description }
        return String(describing: type(of: store))
    }
}
