/// One entry of a thread's lookup cache (registry serial 0: empty).
@usableFromInline
struct ThreadResolutionCacheEntry {
    @usableFromInline var registry: UInt64 = 0
    @usableFromInline var generation: UInt64 = 0
    @usableFromInline var key = FastResolutionKey(type: 0, container: 0)
    @usableFromInline var resolution: CachedResolution?
    /// Lent to a resolution in progress on this thread (see
    /// `Registry.withCachedResolution`): not to be replaced meanwhile.
    @usableFromInline var busy = false

    init() {}

    @usableFromInline
    init(registry: UInt64, generation: UInt64, key: FastResolutionKey, resolution: CachedResolution) {
        self.registry = registry
        self.generation = generation
        self.key = key
        self.resolution = resolution
    }
}

/// Key of the Swift fast cache: the addresses of the property type's and
/// the container type's metadata.
@usableFromInline
struct FastResolutionKey: Hashable, Sendable {
    @usableFromInline let type: UInt
    @usableFromInline let container: UInt

    @usableFromInline
    init(type: UInt, container: UInt) {
        self.type = type
        self.container = container
    }

    @usableFromInline
    init(valueType: Any.Type, containerType: AnyObject.Type) {
        self.type = UInt(bitPattern: ObjectIdentifier(valueType))
        self.container = UInt(bitPattern: ObjectIdentifier(containerType))
    }

    /// The slot of this key in a thread's 64-entry lookup cache.
    @usableFromInline
    var threadCacheSlot: Int {
        let mixed = (type &* 0x9E37_79B9_7F4A_7C15) ^ (container &* 0xC2B2_AE3D_27D4_EB4F)
        return Int(truncatingIfNeeded: mixed >> 58)
    }
}

/// Key of the name cache used by `resolve(type:container:property:)`.
struct NamedResolutionKey: Hashable {
    let type: SpellTypeKey
    let container: SpellTypeKey
    /// The registration name asked for (see ``SpellName``), nil for none.
    var name: String? = nil
}
