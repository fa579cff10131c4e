/// A registration record: something registered under a handle.
protocol HandledRecord: Sendable {
    var handle: SpellHandle { get }
}

/// One kind of registration in registration order, removable by handle in
/// amortized O(1) (a script unregistering N registrations costs O(N), not
/// O(N²)).
///
/// The records sit in slots indexed by handle; a removed record leaves an
/// empty slot (a tombstone) that iteration skips. Leading and trailing
/// empty slots are dropped as they appear, and the slots are compacted
/// when more of them are empty than full, so iterating costs O(count) and
/// each removal pays for the compaction it later causes.
struct RegistrationList<Record: HandledRecord>: BidirectionalCollection, Sendable {
    private var slots: [Record?] = []
    /// The slot of each record held, by its handle.
    private var positions: [SpellHandle: Int] = [:]
    /// The first slot that may be full: every slot before it is empty.
    /// (The last slot, if any, is always full.)
    private var head = 0
    /// How many records are held.
    private(set) var count = 0

    init() {}

    init(_ records: some Sequence<Record>) {
        for record in records { append(record) }
    }

    var startIndex: Int { head }
    var endIndex: Int { slots.count }
    var isEmpty: Bool { count == 0 }

    subscript(position: Int) -> Record { slots[position]! }

    func index(after i: Int) -> Int {
        var next = i + 1
        while next < slots.count, slots[next] == nil { next += 1 }
        return next
    }

    func index(before i: Int) -> Int {
        var previous = i - 1
        while slots[previous] == nil { previous -= 1 }
        return previous
    }

    /// The record registered as `handle`, if held: one hash lookup.
    subscript(handle handle: SpellHandle) -> Record? {
        positions[handle].flatMap { slots[$0] }
    }

    /// Whether the record registered as `handle` is held.
    func contains(handle: SpellHandle) -> Bool {
        positions[handle] != nil
    }

    /// Appends `record` (whose handle must not be held already).
    mutating func append(_ record: Record) {
        positions[record.handle] = slots.count
        slots.append(record)
        count += 1
    }

    mutating func append(contentsOf records: some Sequence<Record>) {
        for record in records { append(record) }
    }

    /// Puts `record` in the slot of the record with the same handle.
    /// Returns whether one was held.
    @discardableResult
    mutating func replace(with record: Record) -> Bool {
        guard let position = positions[record.handle] else { return false }
        slots[position] = record
        return true
    }

    /// Removes the record registered as `handle`, if held; `visits` counts
    /// the slots looked at (amortized O(1) per removal).
    @discardableResult
    mutating func remove(_ handle: SpellHandle, visits: inout Int) -> Record? {
        guard let position = positions.removeValue(forKey: handle) else { return nil }
        let record = slots[position]
        slots[position] = nil
        count -= 1
        visits += 1
        if count == 0 {
            slots.removeAll(keepingCapacity: true)
            head = 0
            return record
        }
        // Empty slots at either end go now, each once.
        while slots[head] == nil {
            head += 1
            visits += 1
        }
        while slots[slots.count - 1] == nil {
            slots.removeLast()
            visits += 1
        }
        // More empty slots than records: compact, O(count), paid for by the
        // count removals since the last compaction.
        if slots.count - count > count {
            visits += slots.count - head
            compact()
        }
        return record
    }

    /// Removes the records for which `isRemoved` is true, in O(count).
    mutating func removeAll(where isRemoved: (Record) throws -> Bool) rethrows {
        let kept = try filter { try !isRemoved($0) }
        guard kept.count != count else { return }
        self = RegistrationList(kept)
    }

    mutating func removeAll() {
        self = RegistrationList()
    }

    private mutating func compact() {
        var compacted: [Record?] = []
        compacted.reserveCapacity(count)
        for case let record? in slots[head...] {
            positions[record.handle] = compacted.count
            compacted.append(record)
        }
        slots = compacted
        head = 0
    }

    static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        sum.append(contentsOf: rhs)
        return sum
    }

    static func += (lhs: inout Self, rhs: Self) {
        lhs.append(contentsOf: rhs)
    }
}

extension RegistrationList: ExpressibleByArrayLiteral {
    init(arrayLiteral records: Record...) {
        self.init(records)
    }
}

extension InitializerRecord: HandledRecord {}
extension HookRecord: HandledRecord {}
extension PreferenceOverrideRecord: HandledRecord {}
extension TemplateProviderRecord: HandledRecord {}
extension CustomSpellRecord: HandledRecord {}
extension ResolverRecord: HandledRecord {}
extension PreferenceKeyGeneratorRecord: HandledRecord {}
extension DecoratorRecord: HandledRecord {}
