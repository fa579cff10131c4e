import Foundation
import Testing

/// `bmlua check` on scripts folders that each plant one mistake: every
/// finding at its `file:line`, and the rest of the folder still checked.
@Suite("bmlua check finds planted mistakes")
struct BMLuaCheckFindingsTests {
    /// Runs `bmlua check` on `files` (with a small instruction budget, so a
    /// planted endless loop costs little) and returns the output lines with
    /// the folder's path shortened to `$`.
    func check(_ files: [String: String], _ extra: [String] = []) throws -> (lines: [String], status: Int32, stderr: String) {
        let dir = try scratchDirectory(files)
        let result = try bmlua(["check", "--max-instructions", "2000000"] + extra + [dir.path])
        let lines = result.stdout.split(separator: "\n").map { $0.replacingOccurrences(of: dir.path, with: "$") }
        return (lines, result.status, result.stderr)
    }

    /// The lines `bmlua check` prints for `files` (see `check`), which it
    /// must fail (status 1).
    func failedCheck(_ files: [String: String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let result = try check(files)
        #expect(result.status == 1, sourceLocation: sourceLocation)
        return result.lines
    }

    @Test func anInitializerThatIndexesNilIsAnErrorAtItsFailingLine() throws {
        let lines = try failedCheck(["a.lua": """
            local VC = bm.class("VC", { loader = bm.spell.injectable("Loader") })
            bm.initializer {
              type = "Loader",
              init = function()
                local config = nil
                return { url = config.url }
              end,
            }
            """])
        #expect(lines == ["$/a.lua:6: error: attempt to index a nil value (local 'config') (dry run: reading VC.loader)"])
    }

    @Test func anInitializerThatCallsAMissingFunctionOrRaisesIsAnError() throws {
        let result = try check(["a.lua": """
            bm.initializer { type = "Other", init = function() return makeOther() end }
            bm.initializer { type = "Third", init = function()
              error("no third today")
            end }
            local Shop = bm.class("Shop", { cart = bm.spell.lazy("Cart") })
            bm.initializer { type = "Cart", container = Shop, init = function(shop) return shop:missingMethod() end }
            """])
        #expect(result.status == 1)
        // Without the app's manifest, a global nothing comes close to may
        // be the app's: a note, not a finding.
        #expect(result.lines.count == 2)
        #expect(result.lines[0] == "$/a.lua:3: error: no third today (dry run: the initializer for Third)")
        #expect(result.lines[1].hasPrefix("$/a.lua:6: error: attempt to call a nil value (method 'missingMethod')"))
        #expect(result.stderr.contains("note: 1 name the scripts use may be the app's (makeOther)"))
    }

    /// An initializer that waits for its caller (`coroutine.yield`, served
    /// by `bm.resolve` inside a coroutine) cannot be dry-run: not a finding.
    /// Before: "attempt to yield from outside a coroutine" was an error.
    @Test func anInitializerThatWaitsIsNotAFinding() throws {
        let result = try check(["a.lua": """
            bm.initializer { type = "Token", init = function() return "token " .. coroutine.yield("need a token") end }
            local co = coroutine.create(function() return bm.resolve("Token") end)
            coroutine.resume(co)
            """])
        #expect(result.status == 0, "\(result.lines)")
        #expect(result.lines == [])
    }

    /// A global that comes close to one the scripts define is a finding
    /// even without the manifest, with the closest name.
    @Test func aMissingGlobalCloseToADefinedOneIsAnError() throws {
        let result = try check(["a.lua": """
            function makeOther() return {} end
            bm.initializer { type = "Other", init = function() return makeOthr() end }
            """])
        #expect(result.status == 1)
        #expect(result.lines.count == 1)
        #expect(result.lines.first?.hasPrefix("$/a.lua:2: error: attempt to call a nil value (global 'makeOthr')") == true)
        #expect(result.lines.first?.hasSuffix("; closest global: makeOther") == true)
        #expect(!result.stderr.contains("note:"))
    }

    @Test func anInitializerThatReturnsNothingForANonOptionalProperty() throws {
        let lines = try failedCheck(["a.lua": """
            local VC = bm.class("VC", {
              loader = bm.spell.injectable("Loader"),
              maybe = bm.spell.injectable { type = "Maybe", optional = true },
            })
            bm.initializer {
              type = "Loader",
              init = function()
                local loader = { url = "x" }
              end,
            }
            bm.initializer { type = "Maybe", init = function() end }
            """])
        #expect(lines.count == 1)
        // At the `init` field, naming the property and the registration.
        let line = lines.first ?? ""
        #expect(line.hasPrefix("$/a.lua:7: error: VC.loader: the initializer "))
        #expect(line.contains("registered at $/a.lua:5 returned nil"))
    }

    /// An initializer and a top-level loop that never end are each one
    /// finding at their line; everything else is still checked.
    @Test func codeThatNeverEndsIsReportedAndTheCheckGoesOn() throws {
        let lines = try failedCheck([
            "a.lua": """
                bm.class("VC", { loader = bm.spell.injectable("Loader") })
                bm.initializer { type = "Loader", init = function()
                  while true do end
                end }
                """,
            "b.lua": "bm.hook { property = 'nope', fn = print }",
            "c.lua": "local n = 0\nwhile true do n = n + 1 end\n",
            "d.lua": "bm.initializer { type = 'Spin', init = function() local i = 0 repeat i = i + 1 until false end }",
        ])
        #expect(lines == [
            "$/a.lua:3: error: instruction limit exceeded (2000000 instructions) (dry run: reading VC.loader)",
            "$/b.lua:1: warning: bm.hook for property 'nope': no Lua class declares a spelled property of that name",
            "$/c.lua:2: error: instruction limit exceeded (2000000 instructions)",
            "$/d.lua:1: error: instruction limit exceeded (2000000 instructions) (dry run: the initializer for Spin)",
        ])
    }

    /// A's initializer makes a new B and reads its property, whose
    /// initializer makes a new A, and so on: no object repeats, the steps do.
    @Test func aCycleWhoseStepsCreateNewObjects() throws {
        let lines = try failedCheck(["a.lua": """
            A = bm.class("A", { next = bm.spell.injectable("B") })
            B = bm.class("B", { next = bm.spell.injectable("A") })
            bm.initializer { type = "B", container = "A", init = function() local b = B.new(); local _ = b.next; return b end }
            bm.initializer { type = "A", container = "B", init = function() local a = A.new(); local _ = a.next; return a end }
            """])
        #expect(lines.count == 1)
        #expect(lines.first?.contains("error: dependency cycle: A.next -> B.next -> A.next") == true)
    }

    @Test func aClassNameDeclaredTwice() throws {
        let lines = try failedCheck(["a.lua": "bm.class('VC', {})", "b.lua": "\nbm.class('VC', { x = 1 })"])
        #expect(lines == ["$/b.lua:2: error: bm.class: a class named VC is already declared at $/a.lua:1; this declaration replaces it"])
    }

    @Test func aSyntaxErrorInAPartialTemplateIsAtItsLine() throws {
        let lines = try failedCheck([
            "a.lua": "bm.class('VC', { header = bm.spell.partial('HeaderView') })",
            "partials/HeaderView.lua": "local view = {}\nview.title = 'x'\nreturn view view\n",
        ])
        #expect(lines == ["$/partials/HeaderView.lua:3: error: <eof> expected near 'view'"])
    }

    @Test func aSyntaxErrorInARequiredModuleIsAtItsLine() throws {
        let lines = try failedCheck([
            "a.lua": "local strings = require 'lib.strings'\nbm.initializer { type = 'X', init = function() return strings.upper('x') end }",
            "lib/strings.lua": "local M = {}\nfunction M.upper(s) return s:upper() end\nlocal = 3\nreturn M\n",
        ])
        #expect(lines == ["$/lib/strings.lua:3: error: error loading module 'lib.strings': <name> expected near '='"])
        // A module nothing requires yet is compiled too.
        let unused = try check(["a.lua": "", "lib/unused.lua": "return {\n  a = 1\n  b = 2\n}"])
        #expect(unused.lines == ["$/lib/unused.lua:3: error: '}' expected (to close '{' at line 1) near 'b'"])
    }

    @Test func aSpellWithoutATypeNamesTheMissingField() throws {
        let lines = try failedCheck(["a.lua": "bm.class('VC', {\n  loader = bm.spell.injectable(),\n})"])
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("$/a.lua:2: error: bm.spell.injectable: missing required field 'type' (or 'protocols')") == true)
    }

    /// `init` misspelled on line 6 of a call that starts on line 3: line 6.
    @Test func aFindingPointsAtTheOffendingFieldsLine() throws {
        let result = try check([
            "a.lua": "-- wiring\n\nbm.initializer {\n  type = 'Loader',\n  container = 'VC',\n  innit = function() return {} end,\n}\n",
            "b.lua": """
                bm.class("VC", { loader = bm.spell.injectable("Loader") })
                bm.initializer { type = "Loader", init = function() return {} end }
                bm.hook {
                  container = "VC",
                  property = "loadr",
                  fn = print,
                }
                bm.preference {
                  container = "Settingz",
                  property = "volume",
                  default = 3,
                }
                """,
        ])
        #expect(result.lines == [
            "$/a.lua:6: error: bm.initializer: unknown field 'innit' (closest: 'init')",
            "$/b.lua:5: warning: bm.hook for VC.loadr: VC declares no injected property 'loadr' (closest: loader)",
        ])
        // "Settingz" comes close to nothing the scripts define: it may be
        // the app's Swift container (there is no manifest to tell).
        #expect(result.stderr.contains("may be the app's (Settingz)"))
    }

    /// Where a lookup misses, what came closest: a container's name
    /// misspelled in the initializer, in a hook, a property's name.
    @Test func lookupsThatMissSayWhatCameClosest() throws {
        let result = try check(["20-loaders.lua": """
            bm.class("UsersViewController", { loader = bm.spell.injectable("Loader") })
            bm.initializer { type = "Loader", container = "UsersViewControler", init = function() return {} end }
            bm.hook { container = "UsersViewControler", property = "loader", fn = print }
            """])
        #expect(result.lines == [
            "$/20-loaders.lua:2: error: bm.initializer for Loader names container UsersViewControler, which no Lua class declares (closest: UsersViewController, whose loader nothing else serves)",
            "$/20-loaders.lua:3: warning: bm.hook names container UsersViewControler, which no Lua class declares (closest: UsersViewController); for a Swift container, give check the app's manifest",
        ])
    }

    /// Scripts that print, at the top level and in initializers, leave the
    /// JSON on standard output valid: their output goes to standard error.
    @Test func jsonStaysValidWhenScriptsPrint() throws {
        let dir = try scratchDirectory(["a.lua": """
            print("top-level output")
            bm.class("VC", { loader = bm.spell.injectable("Loader") })
            bm.initializer { type = "Loader", init = function() print("init output", 42) return {} end }
            bm.hook { property = "nope", fn = print }
            """])
        let result = try bmlua(["check", "--format", "json", dir.path])
        #expect(result.status == 1)
        let problems = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        #expect(problems?.count == 1)
        #expect(problems?.first?["line"] as? Int == 4)
        #expect(result.stderr.contains("top-level output\n"))
        #expect(result.stderr.contains("init output\t42\n"))
        let list = try bmlua(["list", "--format", "json", dir.path])
        #expect(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) is [[String: Any]])
    }

    @Test func githubFormatAnnotatesEachLine() throws {
        let dir = try scratchDirectory([
            "a.lua": "bm.hook { property = 'nope', fn = print }",
            "b.lua": "local x = = 1",
        ])
        let result = try bmlua(["check", "--format", "github", dir.path])
        #expect(result.status == 1)
        #expect(result.stdout.split(separator: "\n") == [
            "::warning file=\(dir.path)/a.lua,line=1::bm.hook for property 'nope': no Lua class declares a spelled property of that name",
            "::error file=\(dir.path)/b.lua,line=1::unexpected symbol near '='",
        ])
    }

    /// Lua cuts chunk names at 60 characters; every position check, list
    /// and a run print carries the whole path.
    @Test func positionsCarryTheWholePathOfALongFileName() throws {
        let deep = "projects/shop/config/wiring/and/some/more/folders/to/make/it/long"
        let dir = try scratchDirectory([
            "\(deep)/10-syntax.lua": "local x = = 1",
            "\(deep)/20-ui.lua": """
                bm.class("VC", { loader = bm.spell.injectable("Loader") })
                bm.initializer { type = "Loader", init = function() local t = nil; return t.x end }
                bm.hook { property = "nope", fn = print }
                """,
            "\(deep)/30-runtime.lua": "local t = nil\nprint(t.x)\n",
        ])
        let folder = dir.appendingPathComponent(deep).path
        #expect(folder.count > 60)
        let result = try bmlua(["check", folder])
        #expect(result.stdout.split(separator: "\n") == [
            "\(folder)/10-syntax.lua:1: error: unexpected symbol near '='",
            "\(folder)/20-ui.lua:2: error: attempt to index a nil value (local 't') (dry run: reading VC.loader)",
            "\(folder)/20-ui.lua:3: warning: bm.hook for property 'nope': no Lua class declares a spelled property of that name",
            "\(folder)/30-runtime.lua:2: error: attempt to index a nil value (local 't')",
        ])
        let list = try bmlua(["list", "--format", "json", dir.appendingPathComponent("\(deep)/20-ui.lua").deletingLastPathComponent().path])
        #expect(!list.stdout.contains("..."))
        let run = try bmlua(["\(folder)/30-runtime.lua"])
        #expect(run.stderr.hasPrefix("bmlua: \(folder)/30-runtime.lua:2: attempt to index a nil value (local 't')\nstack traceback:\n\t\(folder)/30-runtime.lua:2:"))
    }

    /// Issue 29: a scope that is neither built in nor declared by the app
    /// is an error at its field; the manifest's scopes are known.
    @Test func anUnknownScopeIsAnErrorAtItsFieldAndTheManifestsScopesAreKnown() throws {
        let files = ["a.lua": """
            bm.initializer { type = "Engine", scope = "graph", init = function() return {} end }
            bm.initializer {
              type = "Cart",
              scope = "session",
              init = function() return {} end,
            }
            """]
        let bare = try check(files)
        #expect(bare.status == 1)
        #expect(bare.lines == [
            #"$/a.lua:4: error: bm.initializer: field 'scope' must be "instance", "singleton", "weak", "graph" or a custom scope the app declared (none declared), got "session""#,
        ])
        let manifest = try scratchDirectory(["app.json": #"{ "format": 1, "scopes": ["session"] }"#])
        let declared = try check(files, ["--manifest", manifest.appendingPathComponent("app.json").path])
        #expect(declared.status == 0, "\(declared.lines) \(declared.stderr)")
        #expect(declared.lines.allSatisfy { !$0.contains("error") })
    }
}
