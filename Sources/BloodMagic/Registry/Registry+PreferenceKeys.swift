// The key generator for preferences (DeluxeInjection's
// `injectDefaultsWithKeyBlock`): one function that makes the store key of
// every @Preference from its container and property, e.g. "Settings.nickname",
// instead of the bare property name. A key given explicitly (the property's
// own `key:`, or a preference override's) still wins.

/// Makes a preference key from the container's name and the property's name.
public typealias PreferenceKeyGenerator = @Sendable (_ container: String, _ property: String) throws -> String

/// A registered key generator.
struct PreferenceKeyGeneratorRecord: Sendable {
    let handle: SpellHandle
    let source: String
    let generate: PreferenceKeyGenerator

    var entry: SpellEntry {
        SpellEntry(handle: handle, kind: .preferenceKeys, type: nil, container: .any, property: nil, scope: nil, source: source)
    }
}

extension Registry {
    /// Sets the function that makes the key of every @Preference (Swift and
    /// Lua, instance and static) that names no key of its own and has no
    /// override's key. The newest one set applies; unregistering it with the
    /// handle brings back the one before (or plain property names).
    ///
    /// ```swift
    /// registry.setPreferenceKeyGenerator { container, property in "\(container).\(property)" }
    /// // @Preference var nickname: String? in Settings is stored under "Settings.nickname"
    /// ```
    ///
    /// An error it throws, or an empty key, is the property's error: its
    /// getter traps with it, `$property.get()` throws it.
    @discardableResult
    public func setPreferenceKeyGenerator(source: String, _ generate: @escaping PreferenceKeyGenerator) -> SpellHandle {
        state.withLock { state in
            state.add(into: \.preferenceKeyGenerators, invalidatingCaches: false) { handle in
                PreferenceKeyGeneratorRecord(handle: handle, source: source, generate: generate)
            }
        }
    }

    /// ``setPreferenceKeyGenerator(source:_:)`` with the caller's position as its source.
    @discardableResult
    public func setPreferenceKeyGenerator(
        fileID: String = #fileID, line: Int = #line, _ generate: @escaping PreferenceKeyGenerator
    ) -> SpellHandle {
        setPreferenceKeyGenerator(source: spellSource(fileID, line), generate)
    }

    /// The key for `property` of `container` when neither the property nor
    /// an override names one: the generator's key, or the property name
    /// when no generator is set. Throws the generator's error, and
    /// ``SpellError/preferenceKeyInvalid(property:container:reason:)`` for an
    /// empty key.
    public func preferenceKey(container: String, property: String) throws -> String {
        try Registry.preferenceKey(
            container: container, property: property, generator: withResolvingState { $0.preferenceKeyGenerators.last })
    }

    /// The key `generator` makes (the property name without one).
    static func preferenceKey(container: String, property: String, generator: PreferenceKeyGeneratorRecord?) throws -> String {
        guard let generator else { return property }
        let key = try generator.generate(container, property)
        if key.isEmpty {
            throw SpellError.preferenceKeyInvalid(
                property: property, container: container,
                reason: "the key generator registered at \(generator.source) returned an empty key")
        }
        return key
    }
}
