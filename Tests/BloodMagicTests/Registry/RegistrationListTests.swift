@testable import BloodMagic
import Testing

// RegistrationList finds a handle's slot by binary search while its handles
// ascend (no map kept on append), and through a map built once when they
// stop ascending. The slots looked at are counted, not timed: a lookup that
// became a scan would make N lookups O(N²).

private struct Listed: HandledRecord {
    let handle: SpellHandle
    let label: Int
}

private func listed(_ id: UInt64) -> Listed {
    Listed(handle: SpellHandle(id: id), label: Int(id))
}

@Suite struct RegistrationListTests {
    /// N lookups and N removals of a list appended to in handle order look
    /// at O(N log N) slots: about 17 per lookup for 100,000 records, where a
    /// scan would look at 5,000,000,000 in all.
    @Test func lookupsAndRemovalsOfAnOrderedListAreLogarithmic() {
        let count = 100_000
        var list = RegistrationList<Listed>()
        // Handles of one registry, shared by several lists: gaps between them.
        for id in stride(from: 3, through: UInt64(3 * count), by: 3) { list.append(listed(id)) }
        #expect(list.count == count)
        // log2(100,000) < 17 probes per search; a search that probes more
        // stops the test there (a scan would take minutes to finish).
        var probes = 0
        for id in stride(from: 3, through: UInt64(3 * count), by: 3) {
            let before = probes
            #expect(list.position(of: SpellHandle(id: id), probes: &probes) != nil)
            #expect(list.position(of: SpellHandle(id: id + 1), probes: &probes) == nil)
            guard probes - before <= 2 * 18 else {
                Issue.record("\(probes - before) slots looked at for two lookups of \(count) records")
                return
            }
        }

        // Every even record going up, then every odd one going down: holes
        // at the front, the back and the middle, and compactions.
        let handles = stride(from: 3, through: UInt64(3 * count), by: 3).map { SpellHandle(id: $0) }
        let order = stride(from: 0, to: count, by: 2).map { handles[$0] }
            + stride(from: 1, to: count, by: 2).reversed().map { handles[$0] }
        var visits = 0
        probes = 0
        for (done, handle) in order.enumerated() {
            let before = probes
            #expect(list.position(of: handle, probes: &probes) != nil)
            guard probes - before <= 18 else {
                Issue.record("\(probes - before) slots looked at to find one of \(list.count) records")
                return
            }
            #expect(list.remove(handle, visits: &visits)?.handle == handle)
            #expect(list[handle: handle] == nil)
            if done == count / 3 {
                let left = Set(order[(done + 1)...])
                #expect(list.map(\.handle) == handles.filter(left.contains))
            }
        }
        #expect(list.isEmpty)
        #expect(visits <= 4 * count, "\(visits) slots visited for \(count) removals")
    }

    /// A list appended to out of handle order (a stage committed after
    /// registrations made in force while it was open) still finds, replaces
    /// and removes each record by its handle, in registration order.
    @Test func aListAppendedToOutOfHandleOrderStillFindsEveryRecord() {
        var list: RegistrationList<Listed> = [listed(1), listed(2), listed(6), listed(7)]
        var visits = 0
        #expect(list.remove(SpellHandle(id: 2), visits: &visits)?.label == 2)
        // Staged earlier (handles 3 to 5), committed now.
        list += [listed(3), listed(4), listed(5)]
        list.append(listed(8))
        #expect(list.map(\.label) == [1, 6, 7, 3, 4, 5, 8])
        for id: UInt64 in [1, 3, 4, 5, 6, 7, 8] {
            #expect(list[handle: SpellHandle(id: id)]?.label == Int(id))
            #expect(list.contains(handle: SpellHandle(id: id)))
        }
        #expect(list[handle: SpellHandle(id: 2)] == nil)
        let replaced = list.replace(with: Listed(handle: SpellHandle(id: 4), label: 40))
        let replacedRemoved = list.replace(with: Listed(handle: SpellHandle(id: 2), label: 20))
        #expect(replaced)
        #expect(!replacedRemoved)
        for id: UInt64 in [6, 1, 8, 5] {
            #expect(list.remove(SpellHandle(id: id), visits: &visits)?.handle.id == id)
        }
        #expect(list.map(\.label) == [7, 3, 40])
        #expect(list[handle: SpellHandle(id: 3)]?.label == 3)
        #expect(list[handle: SpellHandle(id: 7)]?.label == 7)
        // Emptied, it is in order again; a record appended then is found.
        for id: UInt64 in [3, 4, 7] { list.remove(SpellHandle(id: id), visits: &visits) }
        #expect(list.isEmpty)
        list.append(listed(9))
        #expect(list[handle: SpellHandle(id: 9)]?.label == 9)
        #expect(list[handle: SpellHandle(id: 3)] == nil)
    }

    /// The registry's own case: a registration made in force while a stage
    /// is open gets a later handle than one staged before it; after the
    /// commit, each is found by its handle (forwarding to it, unregistering it).
    @Test func registrationsCommittedAfterNewerOnesAreFoundByHandle() throws {
        let registry = Registry()
        let first = registry.registerInitializer(type: SpellTypeKey(name: "Listed"), source: "a.lua:1") { _ in 1 }
        let stage = registry.openStage()
        let staged = registry.withStage(stage) {
            registry.registerInitializer(type: SpellTypeKey(name: "Listed"), source: "b.lua:1") { _ in 2 }
        }
        let inForce = registry.registerInitializer(type: SpellTypeKey(name: "Listed"), source: "a.lua:2") { _ in 3 }
        #expect(staged.id < inForce.id)
        registry.commitStage(stage, replacing: [SpellHandle]())
        // In force in the order [first, inForce, staged]: handles 1, 3, 2.
        #expect(Set(registry.entries.map(\.handle)) == [first, inForce, staged])
        #expect(registry.forward(type: SpellTypeKey(name: "Other"), to: staged, source: "a.lua:3") != nil)
        #expect(registry.unregister(staged))
        #expect(!registry.unregister(staged))
        #expect(registry.unregister(first))
        #expect(registry.entries.map(\.handle).contains(inForce))
    }
}
