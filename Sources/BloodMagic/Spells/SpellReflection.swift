/// A spelled property of a Swift class, as its property wrapper describes
/// it: what tools (a manifest of the app, `bmlua check`) need to know to
/// validate wiring without running the app.
public struct SpelledPropertyInfo: Sendable, Equatable {
    /// The spell on the property.
    public enum Spell: String, Sendable, Codable, CaseIterable {
        /// `@Lazy`.
        case lazy
        /// `@Injectable`.
        case injectable
        /// `@Partial`.
        case partial
        /// `@Final`.
        case final
        /// `@Preference`.
        case preference
        /// `@Spelled(...)`, a custom spell.
        case custom
        /// `@Provider`: a new value on every read.
        case provider
        /// `@Resolved`: a struct's value, resolved when the struct is made,
        /// with no sender.
        case resolved
    }

    /// The property's name (without the wrapper's leading underscore, or the
    /// `name:` the wrapper was given).
    public var name: String
    /// The spell.
    public var spell: Spell
    /// The registry key of the property's type, an Optional's wrapped type
    /// for an optional property: a concrete name or a protocol set.
    public var type: SpellTypeKey
    /// The Swift spelling of the property's type (`Optional<Feed>`, `any FeedLoader`).
    public var swiftType: String
    /// Whether the property's type is an Optional.
    public var isOptional: Bool
    /// For `@Lazy`: whether the property can be made without a registered
    /// initializer (an initial-value expression, or a `DefaultConstructible` type).
    public var isDefaultConstructible: Bool
    /// For `@Preference`: the key it reads (the property name unless given).
    public var preferenceKey: String?
    /// For `@Preference`: whether it has a default value in Swift.
    public var hasDefaultValue: Bool
    /// For a custom spell: the spell's Swift type name.
    public var customSpell: String?
    /// For a spell registered by name (`RegisteredSpell("name")`): that name,
    /// which a script's `bm.define_spell` or Swift's `registerSpell(named:)`
    /// must register.
    public var registeredSpellName: String?
    /// The class that declares the property (a superclass for an inherited one).
    public var declaringClass: String
    /// For `@Injectable(named:)`: the registration name it asks for (see ``SpellName``).
    public var registrationName: String? = nil

    /// `any A & B` for an existential, else the type's own description.
    static func spelling(of type: Any.Type) -> String {
        let text = String(describing: type)
        return SpellTypeKey.isExistential(type) && !text.hasPrefix("any ") ? "any " + text : text
    }

    /// Describes a property; the spells' wrappers make these.
    public init(
        name: String, spell: Spell, valueType: Any.Type, declaringClass: String = "",
        isDefaultConstructible: Bool = false, preferenceKey: String? = nil, hasDefaultValue: Bool = false,
        customSpell: String? = nil
    ) {
        let wrapped = (valueType as? any OptionalProtocol.Type)?.wrappedType
        self.name = name
        self.spell = spell
        self.type = SpellTypeKey(wrapped ?? valueType)
        self.swiftType = wrapped.map { "Optional<\(Self.spelling(of: $0))>" } ?? Self.spelling(of: valueType)
        self.isOptional = wrapped != nil
        self.isDefaultConstructible = isDefaultConstructible
        self.preferenceKey = preferenceKey
        self.hasDefaultValue = hasDefaultValue
        self.customSpell = customSpell
        self.declaringClass = declaringClass
    }
}

/// A property wrapper that can describe the spelled property it backs.
/// BloodMagic's spells conform; a custom wrapper may too, to appear in
/// ``SpellReflection/properties(of:)``.
public protocol SpellDescribing {
    /// The property, given the name reflection found for it (the stored
    /// property's label without its leading underscore).
    func spelledProperty(named name: String) -> SpelledPropertyInfo
}

/// Finds the spelled properties of an object by reflection (`Mirror`), its
/// superclasses' included: the way an app lists its containers for tools
/// without writing the list by hand.
public enum SpellReflection {
    /// Every spelled property of `object`, in declaration order, inherited
    /// ones (from the nearest superclass outwards) after the class's own.
    /// A property declared again by a subclass is listed once.
    public static func properties(of object: AnyObject) -> [SpelledPropertyInfo] {
        var found: [SpelledPropertyInfo] = []
        var seen: Set<String> = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            let declaring = current.subjectType
            for child in current.children {
                guard let label = child.label, let wrapper = child.value as? any SpellDescribing else { continue }
                let name = label.first == "_" ? String(label.dropFirst()) : label
                var info = wrapper.spelledProperty(named: name)
                info.declaringClass = SpellTypeKey(declaring).name
                if seen.insert(info.name).inserted { found.append(info) }
            }
            mirror = current.superclassMirror
        }
        return found
    }

    /// Every spelled property of `value`, a struct (or enum) instance, in
    /// declaration order: its `@Resolved` properties, say. A class instance
    /// is read as ``properties(of:)`` reads it.
    public static func properties(ofValue value: Any) -> [SpelledPropertyInfo] {
        if type(of: value) is AnyClass { return properties(of: value as AnyObject) }
        let declaring = SpellTypeKey(type(of: value)).name
        var found: [SpelledPropertyInfo] = []
        for child in Mirror(reflecting: value).children {
            guard let label = child.label, let wrapper = child.value as? any SpellDescribing else { continue }
            var info = wrapper.spelledProperty(named: label.first == "_" ? String(label.dropFirst()) : label)
            info.declaringClass = declaring
            found.append(info)
        }
        return found
    }

    /// The superclasses of `object`'s class by registry name, nearest first.
    public static func superclasses(of object: AnyObject) -> [String] {
        var names: [String] = []
        var mirror = Mirror(reflecting: object).superclassMirror
        while let current = mirror, names.count < 64 {
            names.append(SpellTypeKey(current.subjectType).name)
            mirror = current.superclassMirror
        }
        return names
    }
}

extension ResolvingCell {
    /// The property this cell serves, under `name` unless the wrapper was given one.
    func spelledProperty(named name: String) -> SpelledPropertyInfo {
        let spell: SpelledPropertyInfo.Spell
        var constructible = false
        switch mode {
        case .lazy:
            spell = .lazy
            let wrapped = (Value.self as? any OptionalProtocol.Type)?.wrappedType ?? Value.self
            constructible = fallback != nil || wrapped is any DefaultConstructible.Type
        case .injectable:
            spell = .injectable
        case .partial:
            spell = .partial
        }
        var info = SpelledPropertyInfo(
            name: explicitName ?? name, spell: spell, valueType: Value.self, isDefaultConstructible: constructible)
        info.registrationName = qualifier
        return info
    }
}

extension Lazy: SpellDescribing {
    /// The property, as a lazy one.
    public func spelledProperty(named name: String) -> SpelledPropertyInfo { cell.spelledProperty(named: name) }
}

extension Injectable: SpellDescribing {
    /// The property, as an injectable one.
    public func spelledProperty(named name: String) -> SpelledPropertyInfo { cell.spelledProperty(named: name) }
}

extension Partial: SpellDescribing {
    /// The property, as a partial one.
    public func spelledProperty(named name: String) -> SpelledPropertyInfo { cell.spelledProperty(named: name) }
}

extension Final: SpellDescribing {
    /// The property, as a final one.
    public func spelledProperty(named name: String) -> SpelledPropertyInfo {
        SpelledPropertyInfo(name: explicitName ?? name, spell: .final, valueType: Value.self)
    }
}

extension Preference: SpellDescribing {
    /// The property, as a preference, with its key and whether it has a default.
    public func spelledProperty(named name: String) -> SpelledPropertyInfo {
        let property = explicitName ?? name
        return SpelledPropertyInfo(
            name: property, spell: .preference, valueType: Value.self,
            preferenceKey: key ?? property, hasDefaultValue: defaultValue != nil)
    }
}

extension Spelled: SpellDescribing {
    /// The property, as one with a custom spell.
    public func spelledProperty(named name: String) -> SpelledPropertyInfo {
        var info = SpelledPropertyInfo(
            name: explicitName ?? name, spell: .custom, valueType: Spell.Value.self,
            customSpell: String(describing: Spell.self))
        info.registeredSpellName = (spell as? any RegistrySpellNaming)?.registeredSpellName
        return info
    }
}

extension Resolved: SpellDescribing {
    /// The property, as a struct's resolved one.
    public func spelledProperty(named name: String) -> SpelledPropertyInfo {
        SpelledPropertyInfo(name: name, spell: .resolved, valueType: Value.self)
    }
}
