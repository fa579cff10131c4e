import Foundation
import Synchronization
import Testing
import TestSupport
@testable import BloodMagicLua

// Issue 15: the watcher under the host — coalescing, relevance, stopping.

/// The batches a watcher reported.
private typealias Batches = SharedLog<[String]>

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

    @Test func coverageFollowsTheTargets() {
        let targets = WatchTargets(
            luaDirectories: ["/s/partials"], luaTrees: ["/s"], files: ["/s/lib/m.lua", "/t/run.lua"])
        #expect(targets.covers("/s/a.lua"))
        #expect(targets.covers("/s/partials/Header.lua"))
        #expect(targets.covers("/s/lib/m.lua"))
        #expect(targets.covers("/s/lib/deep/new.lua"), "a module at any depth of the tree")
        #expect(targets.covers("/s/partials"))
        #expect(targets.covers("/t/run.lua"))
        #expect(!targets.covers("/s/.a.lua.swp"))
        #expect(!targets.covers("/s/.#a.lua"), "an editor's lock link")
        #expect(!targets.covers("/s/..data/a.lua"), "inside a hidden directory")
        #expect(!targets.covers("/t/other.lua"))
        #expect(!targets.covers("/u/a.lua"))
    }

    // Issue 27: a scan watches the real directories every path goes
    // through, for the names that matter there.
    @Test func aScanWatchesWhereLinksLead() throws {
        let root = try scratchDirectory([:]).resolvingSymlinksInPath().path
        let volume = try KubernetesVolume(at: root + "/config", files: ["a.lua": "", "lib/m.lua": ""])
        let data = try FileManager.default.destinationOfSymbolicLink(atPath: volume.path + "/..data")
        let scan = WatchScan(WatchTargets(luaTrees: [volume.path]))
        #expect(scan.snapshot.stamps.keys.sorted() == [volume.path, volume.path + "/a.lua", volume.path + "/lib/m.lua"])
        let interests = scan.interests
        #expect(interests[volume.path]?.names.isSuperset(of: ["..data", data, "lib"]) == true)
        #expect(interests[volume.path]?.scripts == true && interests[volume.path]?.subdirectories == true)
        #expect(interests[volume.path + "/" + data]?.names.isSuperset(of: ["a.lua", "lib"]) == true)
        #expect(interests[volume.path + "/" + data + "/lib"]?.scripts == true, "the real directory of lib/")
        #expect(interests[root]?.names == ["config"])
        #expect(scan.realFiles == [volume.path + "/" + data + "/a.lua", volume.path + "/" + data + "/lib/m.lua"])
        // Names that never matter.
        let top = try #require(interests[volume.path])
        for name in [".#a.lua", ".a.lua.swp", "a.lua~", "4913", "notes.txt", "..data_tmp"] {
            #expect(!top.matters(name, in: volume.path, isDirectory: false), "\(name)")
        }
        #expect(top.matters("b.lua", in: volume.path, isDirectory: false))
        #expect(top.matters("newdir", in: volume.path, isDirectory: true))
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
