import Foundation
import Synchronization
import Testing
@testable import BloodMagicLua

// Issue 15: the watcher under the host — coalescing, relevance, stopping.

/// The batches a watcher reported.
private final class Batches: Sendable {
    private let batches = Mutex<[[String]]>([])
    func add(_ batch: [String]) { batches.withLock { $0.append(batch) } }
    var all: [[String]] { batches.withLock { $0 } }
}

@Suite("Live reload: FileChangeWatcher")
struct FileChangeWatcherTests {
    @Test(arguments: [ScriptWatchMode.native, .polling(interval: .milliseconds(10))])
    func aBurstIsOneBatchAndIrrelevantFilesAreIgnored(mode: ScriptWatchMode) throws {
        let folder = try ScriptFolder(["a.lua": "", "notes.txt": "", "lib/m.lua": "", "lib/other.lua": ""])
        let batches = Batches()
        let targets = WatchTargets(luaDirectories: [folder.path], files: [folder.file("lib/m.lua")])
        let watcher = try FileChangeWatcher(
            mode: mode, quiet: .milliseconds(150), maxDelay: .seconds(2), targets: { targets }, onChange: batches.add)
        defer { watcher.stop() }
        try folder.write("notes.txt", "not a script")
        try folder.write("lib/other.lua", "not required")
        for round in 1...5 {
            try folder.write("a.lua", "x = \(round)")
            try folder.write("lib/m.lua", "y = \(round)")
        }
        try folder.write("b.lua", "new")
        #expect(eventually { !batches.all.isEmpty })
        Thread.sleep(forTimeInterval: 0.2)
        #expect(batches.all.count == 1, "\(batches.all)")
        #expect(batches.all.first == ["a.lua", "b.lua", "lib/m.lua"].map { WatchTargets.normalized(folder.file($0)) })
    }

    @Test func relevanceFollowsTheTargets() {
        let targets = WatchTargets(luaDirectories: ["/s", "/s/partials"], files: ["/s/lib/m.lua", "/t/run.lua"])
        #expect(targets.isRelevant("/s/a.lua"))
        #expect(targets.isRelevant("/s/partials/Header.lua"))
        #expect(targets.isRelevant("/s/lib/m.lua"))
        #expect(targets.isRelevant("/s/lib"), "the directory of a target, replaced as a whole")
        #expect(targets.isRelevant("/s/partials"))
        #expect(!targets.isRelevant("/s/notes.txt"))
        #expect(!targets.isRelevant("/s/.a.lua.swp"))
        #expect(!targets.isRelevant("/s/lib/other.lua"))
        #expect(!targets.isRelevant("/t/other.lua"))
        #expect(targets.directories == ["/s", "/s/partials", "/s/lib", "/t"])
    }

    @Test func stopEndsTheThreadAndCanBeCalledAgain() throws {
        let folder = try ScriptFolder(["a.lua": ""])
        let batches = Batches()
        let watcher = try FileChangeWatcher(
            targets: { WatchTargets(luaDirectories: [folder.path]) }, onChange: batches.add)
        #expect(watcher.isRunning)
        watcher.stop()
        watcher.stop()
        #expect(!watcher.isRunning)
        try folder.write("a.lua", "x = 1")
        Thread.sleep(forTimeInterval: 0.15)
        #expect(batches.all.isEmpty)
    }
}

@Suite("Live reload: FileChangeWatcher and editors' droppings")
struct FileChangeWatcherDroppingTests {
    // Issue 27: lock links, swap files, backups and write tests are no change.
    @Test(arguments: [ScriptWatchMode.native, .polling(interval: .milliseconds(10))])
    func editorDroppingsAreNoChange(mode: ScriptWatchMode) throws {
        let folder = try ScriptFolder(["a.lua": ""])
        let batches = Batches()
        let watcher = try FileChangeWatcher(
            mode: mode, quiet: .milliseconds(100), maxDelay: .seconds(2),
            targets: { WatchTargets(luaDirectories: [folder.path]) }, onChange: batches.add)
        defer { watcher.stop() }
        try check(symlink("alice@host.4242:1700000000", folder.file(".#a.lua")), "lock link")
        try folder.write(".#b.lua", "alice@host.4242:1700000000")
        try folder.write("#a.lua#", "auto-save")
        try folder.write(".a.lua.swp", "swap")
        try folder.write("a.lua~", "backup")
        try folder.write("4913", "")
        try folder.write("a.lua", "x = 1")
        #expect(eventually { batches.all.joined().contains(WatchTargets.normalized(folder.file("a.lua"))) })
        #expect(batches.all.joined().allSatisfy { $0.hasSuffix("/a.lua") }, "\(batches.all)")
    }
}
