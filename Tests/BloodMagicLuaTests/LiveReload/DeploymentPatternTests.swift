import Foundation
import Synchronization
import Testing
import TestSupport
@testable import BloodMagicLua

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Issue 27: every way deployments change files. Each test changes the files
// as the deployment tool does and waits (with a deadline, never a fixed
// sleep) until the new wiring serves, or the reload was refused.

/// A script serving the module `module`'s value as the label.
private func requiringScript(_ module: String) -> String {
    #"local text = require("\#(module)")"# + "\n" + #"bm.initializer { type = "String", init = function() return text end }"#
}

/// A host watching `directory` with `mode`, where `10-label.lua` serves
/// `label` first.
private func watchingHost(_ directory: String, _ mode: ScriptWatchMode, serving label: String) throws -> ScriptHost {
    try writeFile(directory + "/10-label.lua", labelScript(label))
    return try watchingHost(directory, mode)
}

/// A fresh root and its `Scripts` directory, watched with `mode`, where
/// `10-label.lua` serves `label` first.
private func watchingScripts(
    _ mode: ScriptWatchMode, serving label: String
) throws -> (root: String, scripts: String, host: ScriptHost) {
    let root = try scratch()
    let scripts = root + "/Scripts"
    return (root, scripts, try watchingHost(scripts, mode, serving: label))
}

/// A fresh empty directory (its real path: the tests compare paths).
private func scratch() throws -> String {
    let url = try scratchDirectory([:])
    return url.resolvingSymlinksInPath().path
}

/// The system's events and polling.
private let modes: [ScriptWatchMode] = [.native, .polling(interval: .milliseconds(20))]

/// How long a change may take to be in force here: the requirement is a
/// second; the deadline leaves room for a machine shared with builds.
private let deadline: Duration = .seconds(5)

/// Writes a script serving `text` as the label to `path`, and expects
/// `host` to serve it within the deadline.
private func relabel(
    _ host: ScriptHost, _ path: String, _ text: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    try writeFile(path, labelScript(text))
    #expect(eventually(within: deadline) { label(host) == text }, sourceLocation: sourceLocation)
}

@Suite("Live reload: how deployments change files")
struct DeploymentPatternTests {
    @Test(arguments: modes)
    func aKubernetesVolumeSwappedByRenamingDotDotData(mode: ScriptWatchMode) throws {
        let root = try scratch()
        var volume = try KubernetesVolume(at: root + "/config", files: ["10-label.lua": labelScript("v1")])
        let host = try watchingHost(volume.path, mode)
        defer { host.unload() }
        let log = ReloadLog(host)
        #expect(label(host) == "v1")
        try volume.update(["10-label.lua": labelScript("v2")])
        #expect(eventually(within: deadline) { label(host) == "v2" })
        // The second swap too: the watches moved to the new directories.
        try volume.update(["10-label.lua": labelScript("v3"), "20-more.lua": "bm.hook { property = 'label', fn = function() end }"])
        #expect(eventually(within: deadline) { label(host) == "v3" && log.successes.contains { !$0.added.isEmpty } })
        #expect(log.failures.isEmpty, "\(log.failures)")
    }

    @Test(arguments: modes)
    func aKubernetesVolumeWithAModuleInASubdirectory(mode: ScriptWatchMode) throws {
        let root = try scratch()
        var volume = try KubernetesVolume(at: root + "/config", files: [
            "10-label.lua": requiringScript("lib.text"), "lib/text.lua": #"return "module v1""#,
        ])
        let host = try watchingHost(volume.path, mode)
        defer { host.unload() }
        #expect(label(host) == "module v1")
        for version in 2...3 {
            try volume.update(["10-label.lua": requiringScript("lib.text"), "lib/text.lua": #"return "module v\#(version)""#])
            #expect(eventually(within: deadline) { label(host) == "module v\(version)" })
        }
    }

    @Test(arguments: modes, ["current", "current/Scripts"])
    func aScriptsPathRepointedAtANewRelease(mode: ScriptWatchMode, scripts: String) throws {
        let root = try scratch()
        let inRelease = scripts == "current" ? "" : "/Scripts"
        for version in 1...3 {
            try writeFile(root + "/releases/v\(version)\(inRelease)/10-label.lua", labelScript("release \(version)"))
        }
        try makeLink(root + "/current", to: "releases/v1")
        let host = try watchingHost(root + "/" + scripts, mode)
        defer { host.unload() }
        #expect(label(host) == "release 1")
        try repointLink(root + "/current", to: "releases/v2")
        #expect(eventually(within: deadline) { label(host) == "release 2" })
        try repointLink(root + "/current", to: root + "/releases/v3")
        #expect(eventually(within: deadline) { label(host) == "release 3" })
        // An edit in the release now in force.
        try relabel(host, root + "/releases/v3\(inRelease)/10-label.lua", "release 3, patched")
    }

    @Test(arguments: modes)
    func aScriptsDirectoryRemovedThenCreatedAgain(mode: ScriptWatchMode) throws {
        let (_, scripts, host) = try watchingScripts(mode, serving: "first")
        defer { host.unload() }
        let log = ReloadLog(host)
        try FileManager.default.removeItem(atPath: scripts)
        // Refused while it is missing: the old wiring stays.
        #expect(eventually(within: deadline) {
            log.failures.contains { $0.description.contains("cannot read the scripts directory") }
        })
        #expect(label(host) == "first")
        try relabel(host, scripts + "/10-label.lua", "second")
        try relabel(host, scripts + "/10-label.lua", "third")
    }

    @Test(arguments: modes)
    func aScriptsDirectoryRenamedAwayAndReplaced(mode: ScriptWatchMode) throws {
        let (root, scripts, host) = try watchingScripts(mode, serving: "old tree")
        defer { host.unload() }
        // rsync into a new tree, then swap the trees.
        try writeFile(root + "/Scripts.new/10-label.lua", labelScript("new tree"))
        try check(rename(scripts, root + "/Scripts.old"), "rename away")
        try check(rename(root + "/Scripts.new", scripts), "rename into place")
        #expect(eventually(within: deadline) { label(host) == "new tree" })
        // Watching the new tree, not the old one.
        try relabel(host, scripts + "/10-label.lua", "new tree, edited")
        try writeFile(root + "/Scripts.old/10-label.lua", labelScript("old tree, edited"))
        try writeFile(scripts + "/20-marker.lua", "marker = true")
        #expect(eventually(within: deadline) { (try? host.run("return marker")) == [.boolean(true)] })
        #expect(label(host) == "new tree, edited")
    }

    @Test(arguments: modes)
    func aModuleInANewSubdirectoryDeployedAfterTheScriptRequiringIt(mode: ScriptWatchMode) throws {
        let root = try scratch()
        let host = try watchingHost(root, mode, serving: "before")
        defer { host.unload() }
        let log = ReloadLog(host)
        try writeFile(root + "/10-label.lua", requiringScript("lib.deep.extra"))
        // The script arrives first: refused, the module is missing.
        #expect(eventually(within: deadline) { log.failures.contains { $0.description.contains("lib.deep.extra") } })
        #expect(label(host) == "before")
        try writeFile(root + "/lib/deep/extra.lua", #"return "extra module""#)
        #expect(eventually(within: deadline) { label(host) == "extra module" })
    }

    @Test(arguments: modes)
    func aStartupScriptLinkedToAFileElsewhere(mode: ScriptWatchMode) throws {
        let root = try scratch()
        try writeFile(root + "/shared/label.lua", labelScript("shared v1"))
        try FileManager.default.createDirectory(atPath: root + "/Scripts", withIntermediateDirectories: true)
        try makeLink(root + "/Scripts/10-label.lua", to: "../shared/label.lua")
        let host = try watchingHost(root + "/Scripts", mode)
        defer { host.unload() }
        #expect(label(host) == "shared v1")
        // Written in place where the link leads.
        try relabel(host, root + "/shared/label.lua", "shared v2")
        // Saved atomically there.
        try writeFile(root + "/shared/.label.lua.tmp", labelScript("shared v3"))
        try check(rename(root + "/shared/.label.lua.tmp", root + "/shared/label.lua"), "atomic save")
        #expect(eventually(within: deadline) { label(host) == "shared v3" })
    }

    @Test(arguments: modes)
    func editorDroppingsNeverBreakALoadNorAReload(mode: ScriptWatchMode) throws {
        let root = try scratch()
        try writeFile(root + "/10-label.lua", labelScript("saved"))
        // Emacs's lock: a link pointing nowhere, or (where links cannot be
        // made) a regular file holding the same text; its auto-save; vim's
        // swap file and write test; backups.
        try makeLink(root + "/.#10-label.lua", to: "alice@host.4242:1700000000")
        try writeFile(root + "/.#20-other.lua", "alice@host.4242:1700000000")
        try writeFile(root + "/#10-label.lua#", "half-typed (")
        try writeFile(root + "/.10-label.lua.swp", "\u{0}binary swap")
        try writeFile(root + "/10-label.lua~", "old (")
        try writeFile(root + "/4913", "")
        let host = try watchingHost(root, mode)
        defer { host.unload() }
        let log = ReloadLog(host)
        #expect(label(host) == "saved")
        // Vim without a backup copy: the file renamed to its backup, written
        // anew, the swap file kept until the end.
        try check(rename(root + "/10-label.lua", root + "/10-label.lua~"), "backup")
        try writeFile(root + "/10-label.lua", labelScript("saved by vim"))
        try writeFile(root + "/.10-label.lua.swp", "\u{0}more swap")
        #expect(eventually(within: deadline) { label(host) == "saved by vim" })
        try FileManager.default.removeItem(atPath: root + "/.#10-label.lua")
        try writeFile(root + "/.#10-label.lua", "bob@host.1:1")
        try relabel(host, root + "/10-label.lua", "saved by emacs")
        #expect(log.failures.isEmpty, "\(log.failures)")
        let named = log.successes.flatMap(\.changedFiles)
        #expect(named.allSatisfy { $0.hasSuffix("/10-label.lua") }, "\(named)")
    }
}
