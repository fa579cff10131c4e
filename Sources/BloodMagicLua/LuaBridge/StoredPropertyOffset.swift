/// Where a key path's property lives inside an instance, when the key path
/// names one stored property of a class directly, so that an exposed
/// property can read it with one load instead of Swift's runtime key-path
/// projection (which costs about as much as the rest of a property read
/// from Lua, metadata lookups included).
///
/// Swift has no public API for this (`MemoryLayout.offset(of:)` answers
/// only for structs), so it reads the key path object's buffer, whose
/// layout is fixed by the constants in the standard library's
/// `SwiftShims/KeyPath.h`: a 32-bit buffer header, then one 32-bit header
/// per component holding its kind and, for a stored property, its offset.
/// It answers only for the one shape it can be sure of: a single component
/// that is a class's stored property with its offset inline. A property of
/// a non-final class, a computed or observed property, an optional chain
/// or a path of several components all answer nil, and the caller keeps
/// the runtime projection. Before it answers anything, it checks its
/// reading of the layout on a class of its own, once per process.
@usableFromInline
enum StoredPropertyOffset {
    /// The byte offset from the start of an instance of `Root` (or of a
    /// subclass, which keeps its superclass's layout) to the property, or nil.
    @usableFromInline
    static func of<Root: AnyObject, Value>(_ keyPath: KeyPath<Root, Value>) -> Int? {
        guard layoutIsUnderstood else { return nil }
        return parse(keyPath, valueAlignment: MemoryLayout<Value>.alignment)
    }

    // The layout on 64-bit platforms: the object header (two words), the
    // `_kvcKeyPathStringPtr` stored property (one word), then the buffer:
    // its header padded to a word, then the components.
    private static let bufferHeaderOffset = 24
    private static let firstComponentOffset = 32
    private static let bufferSizeMask: UInt32 = 0x00FF_FFFF
    private static let hasReferencePrefixFlag: UInt32 = 0x4000_0000
    private static let discriminatorMask: UInt32 = 0x7F00_0000
    private static let discriminatorShift: UInt32 = 24
    private static let classDiscriminator: UInt32 = 3
    private static let storedOffsetMask: UInt32 = 0x007F_FFFF
    private static let maximumInlineOffset: UInt32 = 0x007F_FFFC
    /// A component header and nothing else: one component, offset inline.
    private static let singleInlineComponentSize: UInt32 = 4

    private static func parse(_ keyPath: AnyKeyPath, valueAlignment: Int) -> Int? {
        guard MemoryLayout<Int>.size == 8 else { return nil }
        return withExtendedLifetime(keyPath) { () -> Int? in
            let object = UnsafeRawPointer(Unmanaged.passUnretained(keyPath).toOpaque())
            let header = object.load(fromByteOffset: bufferHeaderOffset, as: UInt32.self)
            guard header & bufferSizeMask == singleInlineComponentSize, header & hasReferencePrefixFlag == 0 else {
                return nil
            }
            let component = object.load(fromByteOffset: firstComponentOffset, as: UInt32.self)
            guard (component & discriminatorMask) >> discriminatorShift == classDiscriminator else { return nil }
            let payload = component & storedOffsetMask
            guard payload <= maximumInlineOffset else { return nil }
            let offset = Int(payload)
            // Past the object header, and where a value of the type can sit.
            guard offset >= 2 * MemoryLayout<Int>.size, offset % max(valueAlignment, 1) == 0 else { return nil }
            return offset
        }
    }

    /// A class whose stored properties the self-check reads through their
    /// offsets and compares with what the properties hold.
    private final class Probe {
        var first: Int = 0x5EED_0001
        var second: Int = 0x5EED_0002
        var third: UInt8 = 0x5E
        var fourth: Double = 1234.5
        var computed: Int { first }
    }

    /// Whether this reading of the key path layout gives, on this runtime,
    /// the offsets the probe's properties really have, and nil where it must.
    static let layoutIsUnderstood: Bool = {
        let probe = Probe()
        func check<Value: Equatable>(_ keyPath: KeyPath<Probe, Value>) -> Bool {
            guard let offset = parse(keyPath, valueAlignment: MemoryLayout<Value>.alignment) else { return false }
            return withExtendedLifetime(probe) {
                let base = UnsafeRawPointer(Unmanaged.passUnretained(probe).toOpaque())
                return base.load(fromByteOffset: offset, as: Value.self) == probe[keyPath: keyPath]
            }
        }
        return check(\Probe.first) && check(\Probe.second) && check(\Probe.third) && check(\Probe.fourth)
            && parse(\Probe.computed, valueAlignment: MemoryLayout<Int>.alignment) == nil
    }()
}
