import Foundation
import Testing
@testable import BloodMagicLua

/// Where `bmlua check` (and a run) puts a finding: at the line of the
/// mistake, through tail calls, in the file that holds the mistake, and once.
@Suite("bmlua check: positions")
struct BMLuaCheckPositionTests {
    /// `bmlua check` on `files`: the output lines, the folder shortened to `$`.
    func check(_ files: [String: String], _ extra: [String] = []) throws -> (lines: [String], status: Int32) {
        let dir = try scratchDirectory(files)
        let result = try bmlua(["check", "--max-instructions", "2000000"] + extra + [dir.path])
        return (result.stdout.split(separator: "\n").map { $0.replacingOccurrences(of: dir.path, with: "$") }, result.status)
    }

    /// The feed reader's own style, `return RequestManager.new { ... }`: a
    /// tail call, which drops the initializer's frame when the callee is a
    /// Lua function (the check's stand-in). The call's line is blamed, not
    /// the line of `init = function()`.
    @Test func aTailCallIntoAStandInConstructorBlamesTheCallsLine() throws {
        let dir = try makeScripts(["wiring.lua": """
            bm.singleton {
              type = "ManifestCache",
              init = function()
                return ManifestCache.new {
                  capacty = 3,
                }
              end,
            }
            """])
        let checker = ScriptChecker(manifest: try manifestAppHost().manifest().withoutContainers())
        let lines = try checker.check(directory: dir).map { $0.description.replacingOccurrences(of: dir, with: "$") }
        #expect(lines == [
            "$/wiring.lua:4: error: ManifestCache.new: unknown argument 'capacty' (expected capacity) (closest: capacity) (dry run: the initializer for ManifestCache)",
        ])
    }

    /// The same with the feed reader's scripts and manifest, through the CLI.
    @Test func theFeedReadersTailCallWithAMistypedArgumentIsAtItsLine() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/FeedReader")
        var files: [String: String] = [:]
        for name in ["10-network.lua", "20-storage.lua", "30-controllers.lua"] {
            files[name] = try String(contentsOf: root.appendingPathComponent("Scripts/\(name)"), encoding: .utf8)
        }
        files["10-network.lua"] = files["10-network.lua"]?.replacingOccurrences(of: "baseURL =", with: "baseUrl =")
        let result = try check(files, ["--manifest", root.appendingPathComponent("app-manifest.json").path])
        #expect(result.status == 1)
        #expect(result.lines == [
            "$/10-network.lua:9: error: RequestManager.new: unknown argument 'baseUrl' (expected baseURL) (closest: baseURL) (dry run: the initializer for RequestManager)",
        ])
    }

    /// A helper module's `return bm.initializer { ... }`, called as
    /// `return helper.register { ... }`: both tail calls. The mistake is
    /// the module's, at its field's line, in the check and in a run.
    static let helperFolder = [
        "a.lua": """
            local helper = require "lib.helper"
            return helper.register {
              type = "Cache",
              init = function() return {} end,
            }
            """,
        "lib/helper.lua": """
            local M = {}
            function M.register(def)
              return bm.initializer {
                type = def.type,
                init = def.init,
                scope = def.shared and "singleton" or "per-object",
              }
            end
            return M
            """,
    ]

    @Test func aMistakeInAHelperModuleBehindTailCallsIsAtTheModulesLine() throws {
        let result = try check(Self.helperFolder)
        #expect(result.status == 1)
        #expect(result.lines == [
            #"$/lib/helper.lua:6: error: bm.initializer: field 'scope' must be "instance", "singleton", "weak", "graph" or a custom scope the app declared (none declared), got "per-object""#,
        ])
        let dir = try scratchDirectory(Self.helperFolder)
        let run = try bmlua([dir.appendingPathComponent("a.lua").path])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("bmlua: \(dir.path)/lib/helper.lua:6: bm.initializer: field 'scope'"))
    }

    /// A helper that passes its caller's table on (`bm.initializer(def)`):
    /// the field is blamed where the table writes it, in the caller, not
    /// at the helper's call.
    @Test func aFieldIsBlamedWhereTheDefinitionTableWritesIt() throws {
        let result = try check([
            "a.lua": """
                local helper = require "lib.helper"
                bm.class("VC", { cache = bm.spell.injectable("Cache") })
                helper.register {
                  type = "Cache",
                  contaner = "VC",
                  init = function() return {} end,
                }
                """,
            "lib/helper.lua": """
                local M = {}
                function M.register(def)
                  local registration = bm.initializer(def)
                  return registration
                end
                return M
                """,
        ])
        #expect(result.lines.first == "$/a.lua:5: error: bm.initializer: unknown field 'contaner' (closest: 'container')")
    }

    /// A container's name misspelled in one file is reported in that file,
    /// at that line; the property it leaves unserved is not blamed for it.
    @Test func aClosestNameHintDoesNotMoveTheBlame() throws {
        let result = try check([
            "10-ui.lua": """
                bm.class("UsersViewController", { loader = bm.spell.injectable("Loader") })
                """,
            "20-loaders.lua": """
                -- loaders
                bm.initializer {
                  type = "Loader",
                  container = "UsersViewControler",
                  init = function() return {} end,
                }
                """,
        ])
        #expect(result.status == 1)
        #expect(result.lines == [
            "$/20-loaders.lua:4: error: bm.initializer for Loader names container UsersViewControler, which no Lua class declares (closest: UsersViewController, whose loader nothing else serves)",
        ])
    }

    /// An initializer that fails when a later file reads its property at
    /// load time, and again in the dry run: one finding.
    @Test func theSameErrorAtLoadAndInTheDryRunIsReportedOnce() throws {
        let result = try check([
            "a.lua": """
                VC = bm.class("VC", { loader = bm.spell.injectable("Loader") })
                bm.initializer { type = "Loader", init = function() local t = nil; return t.x end }
                """,
            "b.lua": "local vc = VC.new()\nprint(vc.loader)\n",
        ])
        #expect(result.status == 1)
        #expect(result.lines == ["$/a.lua:2: error: attempt to index a nil value (local 't')"])
    }
}
