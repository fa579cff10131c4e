import Foundation
import Testing
@testable import BloodMagicLua

/// Issue 11, "Files outside the scripts directory": `require`, partial
/// templates and preference suites reach files only below their directory.
@Suite("Sandbox: files outside the scripts directory")
struct ConfinedFileTests {
    /// A scripts directory and, beside it, a directory a script must never reach.
    struct Layout {
        let scripts: String
        let outside: String

        init(scripts files: [String: String] = [:]) throws {
            outside = try makeScripts([
                "evil.lua": "return 'OUTSIDE LOADED'",
                "passwd": "root:x:0:0:root:/root:/bin/bash\n",
                "HeaderView.lua": "return 'OUTSIDE PARTIAL'",
            ])
            scripts = try makeScripts(files.isEmpty ? ["keep.txt": ""] : files)
        }

        /// Makes `scripts/<name>` a symbolic link to `target`.
        func link(_ name: String, to target: String) throws {
            let path = ScriptPath.join(scripts, name)
            try FileManager.default.createDirectory(
                atPath: ScriptPath.directory(of: path), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        }
    }

    @Test func requireIgnoresPackagePathAndItsSearchFunctions() throws {
        let layout = try Layout()
        let host = try makeHost(scripts: layout.scripts)
        // Assigning the search paths is refused with a clear error...
        let assigned = host.failure("package.path = '\(layout.outside)/?.lua'") ?? ""
        #expect(assigned == "test.lua:1: package.path cannot be set in the sandbox (require finds modules in the module directory only)")
        #expect(host.failure("package.searchers = {}")?.contains("package.searchers cannot be set") == true)
        #expect(host.failure("package.cpath = ''")?.contains("package.cpath cannot be set") == true)
        // ...and a raw assignment changes nothing: require never reads it.
        let raw = host.failure("rawset(package, 'path', '\(layout.outside)/?.lua'); return require('evil')") ?? ""
        #expect(raw.contains("module 'evil' not found"))
        #expect(!raw.contains(layout.outside))
        #expect(try host.lua("return package.searchers, package.cpath") == [.nil, .nil])
        // package.searchpath no longer probes the file system.
        let probe = host.failure("return package.searchpath('passwd', '\(layout.outside)/?')") ?? ""
        #expect(probe.contains("package.searchpath is not available in the sandbox"))
        #expect(host.failure("package.loadlib = print")?.contains("package.loadlib cannot be set") == true)
    }

    @Test(arguments: ["../evil", "/etc/passwd", "a..b", ".evil", "lib/helper", "lib.", "", "lib\\helper", "lib helper"])
    func requireRefusesNamesThatAreNotModuleNames(name: String) throws {
        let layout = try Layout(scripts: ["lib/helper.lua": "return 1"])
        let host = try makeHost(scripts: layout.scripts)
        host.setGlobal("name", name)
        let message = host.failure("return require(name)") ?? ""
        #expect(message.contains("not found"))
        #expect(message.contains("invalid module name"))
        #expect(!message.contains("OUTSIDE"))
    }

    @Test func requireRefusesLinksThatLeaveTheDirectory() throws {
        let layout = try Layout(scripts: ["lib/helper.lua": "return 'inside'"])
        try layout.link("evil.lua", to: ScriptPath.join(layout.outside, "evil.lua"))
        try layout.link("secret.lua", to: ScriptPath.join(layout.outside, "passwd"))
        try layout.link("ext", to: layout.outside)
        try layout.link("lib/inner.lua", to: "helper.lua")   // a link that stays inside is fine
        let host = try makeHost(scripts: layout.scripts)
        #expect(try host.lua("return (require('lib.helper')), (require('lib.inner'))") == [.string("inside"), .string("inside")])
        for module in ["evil", "secret", "ext.evil"] {
            let message = host.failure("return require('\(module)')") ?? ""
            #expect(message.contains("module '\(module)' not found"))
            #expect(message.contains("leads outside the module directory"))
            // Nothing of the refused file: neither its contents nor its real path.
            #expect(!message.contains("root:x"))
            #expect(!message.contains(layout.outside))
        }
    }

    @Test func modulesAreNamedByTheirFileAndCachedAsLuaDoes() throws {
        let layout = try Layout(scripts: [
            "lib/strings.lua": "local M = {}\nfunction M.fail()\n  error('broken on purpose')\nend\nreturn M",
            "lib/init/init.lua": "count = (count or 0) + 1\nreturn { n = count }",
            "lib/quiet.lua": "-- returns nothing",
            "shebang.lua": "#!/usr/bin/env bmlua\nreturn 'ok'",
        ])
        let host = try makeHost(scripts: layout.scripts)
        let message = host.failure("require('lib.strings').fail()") ?? ""
        #expect(message == "\(layout.scripts)/lib/strings.lua:3: broken on purpose")
        #expect(try host.lua("return require('lib.init').n, require('lib.init').n") == [.integer(1), .integer(1)])
        #expect(try host.lua("return require('lib.quiet'), package.loaded['lib.quiet']") == [.boolean(true), .boolean(true)])
        #expect(try host.lua("return select(2, require('shebang'))") == [.string("\(layout.scripts)/shebang.lua")])
        #expect(try host.lua("package.preload.virtual = function(name) return name .. '!' end; return require('virtual')")
            == [.string("virtual!"), .string(":preload:")])
        #expect(try host.lua("return require('bm') == bm") == [.boolean(true)])
    }

    @Test func withoutAScriptsDirectoryRequireFindsNoFiles() throws {
        let host = try makeHost()
        let message = host.failure("return require('anything')") ?? ""
        #expect(message.contains("module 'anything' not found"))
        #expect(message.contains("no module directory"))
    }

    @Test func unsafeStatesKeepLuasOwnRequire() throws {
        let layout = try Layout()
        let state = try LuaState(libraries: .unsafe)
        let result = try state.run("package.path = '\(layout.outside)/?.lua'; return require('evil')", name: "=t")
        #expect(result.first == .string("OUTSIDE LOADED"))
    }

    @Test func partialTemplatesAreFoundOnlyInsidePartials() throws {
        let layout = try Layout(scripts: ["partials/Inside.lua": "return { kind = 'inside' }"])
        try layout.link("partials/Linked.lua", to: ScriptPath.join(layout.outside, "HeaderView.lua"))
        let host = try makeHost(scripts: layout.scripts)
        host.setGlobal("up", "../../\(URL(fileURLWithPath: layout.outside).lastPathComponent)/HeaderView")
        try host.lua("""
            V = bm.class('V', {
              inside = bm.spell.partial('Inside'),
              up = bm.spell.partial(up),
              dotted = bm.spell.partial('../HeaderView'),
              linked = bm.spell.partial('Linked'),
            })
            """)
        #expect(try host.lua("return V.new().inside.kind") == [.string("inside")])
        for property in ["up", "dotted", "linked"] {
            let message = host.failure("return V.new().\(property)") ?? ""
            #expect(message.contains("no template"), "\(property): \(message)")
            #expect(!message.contains("OUTSIDE"))
        }
    }

    @Test(arguments: ["../x", "../../outside/evil", "/tmp/x", "a/b", "a..b", ".hidden", "", "com.example.", "-lead.x"])
    func preferenceSuitesMustBeNames(suite: String) throws {
        let host = try makeHost()
        host.setGlobal("suite", suite)
        let override = host.failure("bm.preference { property = 'p', suite = suite }", file: "prefs.lua") ?? ""
        #expect(override.hasPrefix("prefs.lua:1: bm.preference: invalid preference suite \"\(suite)\""), "\(override)")
        let spell = host.failure("\nlocal s = bm.spell.preference { suite = suite }", file: "prefs.lua") ?? ""
        #expect(spell.hasPrefix("prefs.lua:2: bm.spell.preference: invalid preference suite \"\(suite)\""), "\(spell)")
        // The Swift store layer refuses the name too, touching no file.
        let store = UserDefaultsPreferenceStore(suiteName: suite)
        #expect(store.fileURL == nil)
        #expect(throws: PreferenceSuiteError.self) { try store.setValue(.int(1), forKey: "k") }
        #expect(throws: PreferenceSuiteError.self) { try UserDefaultsPreferenceStore(validatingSuiteName: suite) }
        #expect(throws: PreferenceSuiteError.self) {
            try PropertyListFilePreferenceStore(directory: URL(fileURLWithPath: "/tmp"), suite: suite)
        }
    }

    @Test(arguments: ["com.example.app", "profile", "group.com.example", "bm_test.suite-1"])
    func validSuitesAreAccepted(suite: String) throws {
        #expect(PreferenceSuiteName.isValid(suite))
        let host = try makeHost()
        host.setGlobal("suite", suite)
        try host.lua("bm.preference { property = 'p', suite = suite }")
    }

    @Test func suiteFilesStayInTheStoresFolder() throws {
        let folder = try scratchDirectory([:])
        let outside = try scratchDirectory([:])
        let store = PropertyListFilePreferenceStore(fileURL: folder.appendingPathComponent("prefs.plist"))
        let host = try makeHost(preferences: store)
        host.setGlobal("escape", "../\(outside.lastPathComponent)/evil")
        try host.lua("""
            local S = bm.class('S', { volume = bm.spell.preference { suite = 'com.example.audio', default = 1 } })
            local s = S.new()
            s.volume = 7
            result = s.volume
            ok, message = pcall(function()
              local E = bm.class('E', { x = bm.spell.preference { suite = escape } })
            end)
            """)
        #expect(try host.lua("return result, ok") == [.integer(7), .boolean(false)])
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["com.example.audio.plist", "com.example.audio.plist.lock"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.deletingLastPathComponent().path)
            .filter { $0.hasPrefix("evil") }.isEmpty)
    }

    /// The escape attempts of the issue, run by `bmlua` as a user would.
    @Test func bmluaKeepsEveryAttemptInside() throws {
        let layout = try Layout()
        let attempts = try makeScripts([
            "attempts.lua": """
                local function try(label, f) local ok, e = pcall(f); print(label, ok, e) end
                try('path', function() package.path = OUTSIDE .. '/?.lua'; return require('evil') end)
                try('raw', function() rawset(package, 'path', OUTSIDE .. '/?.lua'); return require('evil') end)
                try('searchpath', function() return package.searchpath('passwd', OUTSIDE .. '/?') end)
                try('dots', function() return require('..' .. '.evil') end)
                try('suite', function() bm.preference { property = 'p', suite = '../../evil' } end)
                """,
        ])
        let result = try bmlua(
            ["--scripts", layout.scripts, "-e", "OUTSIDE = '\(layout.outside)'", ScriptPath.join(attempts, "attempts.lua")],
            environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("OUTSIDE LOADED"))
        #expect(!result.stdout.contains("root:x"))
        #expect(!result.stdout.contains("\ttrue\t"))
        #expect(result.stdout.split(separator: "\n").filter { $0.contains("\tfalse\t") }.count == 5, "\(result.stdout)")
    }
}
