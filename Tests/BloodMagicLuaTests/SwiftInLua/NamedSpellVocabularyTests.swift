import Foundation
import Synchronization
import Testing
import TestSupport
@testable import BloodMagicLua

/// A Swift class whose property runs a spell a script defines.
final class VocabularyPlayer: DefaultConstructible {
    @Spelled(RegisteredSpell("clamp")) var volume = 5
    @Spelled(RegisteredSpell("shout")) var greeting = "hi"
    init() {}
}

/// One vocabulary of named spells for Swift and Lua: a spell registered in
/// Swift is `bm.spell.<name>` in scripts, one a script defines runs for
/// Swift's `RegisteredSpell`, and `check` and `types` know both.
@Suite("Named spells across Swift and Lua")
struct NamedSpellVocabularyTests {
    @Test func aSpellRegisteredInSwiftIsUsableFromScripts() throws {
        let host = try makeHost()
        let senders = SenderLog()
        host.registry.registerSpell(named: "shout", get: { value, context in
            senders.add("\(context.sender)")
            if let text = value as? String { value = text.uppercased() + " (\(context.property))" }
        }, set: { newValue, oldValue, _ in
            if let text = newValue as? String { newValue = text + "!" + ((oldValue as? String).map { " was \($0)" } ?? "") }
        })
        let result = try host.lua("""
            local Greeter = bm.class("Greeter", { greeting = bm.spell.shout() })
            local greeter = Greeter.new()
            greeter.greeting = "hey"
            greeter.greeting = "ho"
            return greeter.greeting, bm.spell.nothing_by_this_name
            """)
        #expect(result == [.string("HO! WAS HEY! (greeting)"), .nil])
        #expect(senders.all == ["Greeter (Lua object)"])
    }

    @Test func aSpellDefinedInAScriptRunsForSwiftsRegisteredSpell() throws {
        let host = try makeHost()
        try host.lua("""
            bm.define_spell {
              name = "clamp",
              set = function(sender, property, new, old)
                return math.max(0, math.min(new, 10))
              end,
            }
            bm.define_spell {
              name = "shout",
              get = function(sender, property, value) return string.upper(value) .. "!" end,
            }
            """, file: "spells.lua")
        #expect(host.registry.entries.map { "\($0.kind) \($0.property ?? "")" } == ["customSpell clamp", "customSpell shout"])
        let player = Registry.withCurrent(host.registry) { VocabularyPlayer() }
        Registry.withCurrent(host.registry) {
            player.volume = 42
            #expect(player.volume == 10)
            player.volume = -3
            #expect(player.volume == 0)
            #expect(player.greeting == "HI!")
        }
        // Unloaded, the script's spells leave the registry with it.
        host.unload()
        #expect(host.registry.namedSpell("clamp") == nil)
    }

    @Test func checkKnowsTheSpellsOfBothLanguages() throws {
        let app = try makeHost()
        app.registry.registerSpell(named: "shout", get: { _, _ in })
        app.declare(VocabularyPlayer.self)
        let manifest = app.manifest()
        // The manifest names the spell each RegisteredSpell runs.
        let json = String(decoding: try manifest.jsonData(), as: UTF8.self)
        #expect(json.contains("\"spellName\" : \"clamp\"") && json.contains("\"spellName\" : \"shout\""))
        // A Lua class using the app's Swift spell, and the spell a Swift
        // property needs defined in a script: clean with the manifest.
        let files = [
            "a.lua": "bm.class('Greeter', { greeting = bm.spell.shout() })",
            "b.lua": "bm.define_spell { name = 'clamp', set = function(_, _, new) return new end }",
        ]
        let dir = try makeScripts(files)
        #expect(try ScriptChecker(manifest: manifest).check(directory: dir) == [])
        // Without the definition, the Swift property's spell is missing.
        let missing = try makeScripts(["a.lua": files["a.lua"]!, "b.lua": "bm.define_spell { name = 'clamps', get = print }"])
        #expect(try ScriptChecker(manifest: manifest).check(directory: missing).map(\.message) == [
            "VocabularyPlayer.volume: no spell named \"clamp\" is registered for its RegisteredSpell(\"clamp\") (define it with bm.define_spell { name = \"clamp\", ... } or Registry.registerSpell(named:)) (closest: clamps)",
        ])
        // Without the manifest, the app's spell is unknown to the script.
        let alone = try ScriptChecker().check(directory: dir).map { $0.description.replacingOccurrences(of: dir, with: "$") }
        #expect(alone == ["$/a.lua:1: error: attempt to call a nil value (field 'shout')"])
    }

    @Test func typesAnnotatesTheSpellsOfBothLanguages() throws {
        let app = try makeHost()
        app.registry.registerSpell(named: "shout", get: { _, _ in })
        try app.lua("bm.define_spell { name = 'clamp', get = function(_, _, v) return v end }", file: "spells.lua")
        let text = try app.annotations()
        #expect(text.contains("---@field clamp fun(...: any): bm.Spell a named spell, registered at spells.lua:1"))
        #expect(text.contains("---@field shout fun(...: any): bm.Spell a named spell, registered at BloodMagicLuaTests/NamedSpellVocabularyTests.swift:"))
        // From a manifest file, as `bmlua types --manifest` reads it.
        let manifestFile = try makeScripts(["app.json": String(decoding: try app.manifest().jsonData(), as: UTF8.self)]) + "/app.json"
        let types = try bmlua(["types", "--manifest", manifestFile])
        #expect(types.status == 0)
        #expect(types.stdout.contains("---@field shout fun(...: any): bm.Spell"))
    }

    /// `bmlua types SCRIPTS` loads the scripts first, so the spells they
    /// define are annotated; a script that fails is reported at its line,
    /// the exit status is 1, and the annotations are still written.
    @Test func typesGivenScriptsAnnotatesTheSpellsTheyDefine() throws {
        let dir = try makeScripts([
            "10-spells.lua": "bm.define_spell { name = 'audited', get = function(_, _, v) return v end }\nprint('loaded')\n",
        ])
        let types = try bmlua(["types", dir])
        #expect(types.status == 0, "\(types.stderr)")
        #expect(types.stdout.contains("---@field audited fun(...: any): bm.Spell a named spell, registered at \(dir)/10-spells.lua:1"))
        #expect(!types.stdout.contains("loaded"))   // a script's print goes to standard error
        let withoutScripts = try bmlua(["types"])
        #expect(!withoutScripts.stdout.contains("audited"))

        try "local x = = 1\n".write(toFile: dir + "/20-broken.lua", atomically: true, encoding: .utf8)
        let broken = try bmlua(["types", dir])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("\(dir)/20-broken.lua:1:"))
        #expect(broken.stdout.contains("---@field audited fun(...: any): bm.Spell"))
    }
}

/// Collects what hooks saw, from any thread.
typealias SenderLog = SharedLog<String>
