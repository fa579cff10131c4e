/// A registration record: something registered under a handle.
protocol HandledRecord: Sendable {
    var handle: SpellHandle { get }
}

/// One kind of registration in registration order, removable by handle in
/// O(log count) (a script unregistering N registrations costs
/// O(N log N), not O(N²)), appended to in amortized O(1) with nothing
/// hashed.
///
/// The records sit in slots in registration order; a removed record leaves
/// an empty slot (a tombstone) that iteration skips and that keeps its
/// handle. Leading and trailing empty slots are dropped as they appear, and
/// the slots are compacted when more of them are empty than full, so
/// iterating costs O(count) and each removal pays for the compaction it
/// later causes.
///
/// Finding a handle's slot: handles grow with time within a registry, so a
/// list appended to in registration order holds them in ascending order,
/// and a binary search over the slots' handles finds one in O(log count)
/// with no map to keep (loading thousands of registrations hashed and grew
/// a handle → slot dictionary per list before: a tenth of a Lua
/// definition's cost). A list appended to out of order (a stage committed
/// after registrations made in force while it was open; two lists joined
/// with `+`) builds that dictionary once, in O(count), and keeps it until
/// the list is empty again: one hash lookup then.
struct RegistrationList<Record: HandledRecord>: BidirectionalCollection, Sendable {
    /// A slot: a record, or the tombstone of a removed one, which keeps its
    /// handle so that the handles of the slots stay ascending.
    private struct Slot: Sendable {
        let handle: SpellHandle
        var record: Record?
    }

    private var slots: [Slot] = []
    /// The slot of each record held, by its handle: only once the slots'
    /// handles stopped ascending (nil while they ascend: binary search).
    private var positions: [SpellHandle: Int]?
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

    subscript(position: Int) -> Record { slots[position].record! }

    func index(after i: Int) -> Int {
        var next = i + 1
        while next < slots.count, slots[next].record == nil { next += 1 }
        return next
    }

    func index(before i: Int) -> Int {
        var previous = i - 1
        while slots[previous].record == nil { previous -= 1 }
        return previous
    }

    /// The slot of the record registered as `handle`, if held: a binary
    /// search over the slots' handles, O(log count), or one hash lookup in
    /// a list appended to out of order. `probes` counts the slots the
    /// search looked at (for tests of its complexity).
    func position(of handle: SpellHandle, probes: inout Int) -> Int? {
        if let positions { return positions[handle] }
        var low = head
        var high = slots.count
        while low < high {
            let middle = low + (high - low) / 2
            probes += 1
            if slots[middle].handle.id < handle.id { low = middle + 1 } else { high = middle }
        }
        guard low < slots.count, slots[low].handle == handle, slots[low].record != nil else { return nil }
        return low
    }

    private func position(of handle: SpellHandle) -> Int? {
        var probes = 0
        return position(of: handle, probes: &probes)
    }

    /// The record registered as `handle`, if held: O(log count) (see
    /// `position(of:probes:)`).
    subscript(handle handle: SpellHandle) -> Record? {
        position(of: handle).flatMap { slots[$0].record }
    }

    /// Whether the record registered as `handle` is held: O(log count).
    func contains(handle: SpellHandle) -> Bool {
        position(of: handle) != nil
    }

    /// Appends `record` (whose handle must not be held already): amortized
    /// O(1), nothing hashed while handles come in ascending order.
    mutating func append(_ record: Record) {
        let handle = record.handle
        if positions == nil, let last = slots.last, last.handle.id >= handle.id {
            indexPositions()
        }
        positions?[handle] = slots.count
        slots.append(Slot(handle: handle, record: record))
        count += 1
    }

    /// Appends `record` as `append` does; returns the record that was
    /// last before it, if any.
    mutating func appendReturningLast(_ record: Record) -> Record? {
        let last = isEmpty ? nil : self[slots.count - 1]
        append(record)
        return last
    }

    mutating func append(contentsOf records: some Sequence<Record>) {
        for record in records { append(record) }
    }

    /// Puts `record` in the slot of the record with the same handle.
    /// Returns whether one was held.
    @discardableResult
    mutating func replace(with record: Record) -> Bool {
        guard let position = position(of: record.handle) else { return false }
        slots[position].record = record
        return true
    }

    /// Removes the record registered as `handle`, if held; `visits` counts
    /// the slots looked at once the record is found (amortized O(1) per
    /// removal; the search for it is O(log count), see
    /// `position(of:probes:)`).
    @discardableResult
    mutating func remove(_ handle: SpellHandle, visits: inout Int) -> Record? {
        guard let position = position(of: handle) else { return nil }
        let record = slots[position].record
        slots[position].record = nil
        positions?[handle] = nil
        count -= 1
        visits += 1
        if count == 0 {
            slots.removeAll(keepingCapacity: true)
            head = 0
            positions = nil  // an empty list is in order again
            return record
        }
        // Empty slots at either end go now, each once.
        while slots[head].record == nil {
            head += 1
            visits += 1
        }
        while slots[slots.count - 1].record == nil {
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

    /// Builds `positions`, O(count): the first append out of order.
    private mutating func indexPositions() {
        var map: [SpellHandle: Int] = [:]
        map.reserveCapacity(count + 1)
        for position in head..<slots.count where slots[position].record != nil {
            map[slots[position].handle] = position
        }
        positions = map
    }

    private mutating func compact() {
        var compacted: [Slot] = []
        compacted.reserveCapacity(count)
        for slot in slots[head...] where slot.record != nil {
            positions?[slot.handle] = compacted.count
            compacted.append(slot)
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
