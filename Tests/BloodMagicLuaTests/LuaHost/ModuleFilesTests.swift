import Foundation
import Testing
@testable import BloodMagicLua

/// ModuleFiles answers with the sandbox's own C rules (bm_is_module_name,
/// bm_confined_path): the same names and the same files as `require`.
@Suite("Module files: the host's view of require")
struct ModuleFilesTests {
    @Test func moduleNamesFollowRequiresRule() {
        #expect(ModuleFiles.isModuleName("lib.strings"))
        #expect(ModuleFiles.isModuleName("a-b_c.D9"))
        #expect(!ModuleFiles.isModuleName(""))
        #expect(!ModuleFiles.isModuleName("a..b"))
        #expect(!ModuleFiles.isModuleName(".a"))
        #expect(!ModuleFiles.isModuleName("a."))
        #expect(!ModuleFiles.isModuleName("a/b"))
        #expect(!ModuleFiles.isModuleName("a\u{0}b"))
        #expect(!ModuleFiles.isModuleName("é"))
        #expect(ModuleFiles.isModuleName(String(repeating: "a", count: 200)))
        #expect(!ModuleFiles.isModuleName(String(repeating: "a", count: 201)))
    }

    @Test func filesAreFoundInsideTheDirectoryOnly() throws {
        try withTemporaryDirectory { dir in
            let fm = FileManager.default
            let modules = dir.appendingPathComponent("modules")
            try fm.createDirectory(at: modules.appendingPathComponent("pkg"), withIntermediateDirectories: true)
            try "return 1".write(to: modules.appendingPathComponent("plain.lua"), atomically: true, encoding: .utf8)
            try "return 2".write(to: modules.appendingPathComponent("pkg/init.lua"), atomically: true, encoding: .utf8)
            try "return 3".write(to: dir.appendingPathComponent("outside.lua"), atomically: true, encoding: .utf8)
            try fm.createSymbolicLink(atPath: modules.appendingPathComponent("escape.lua").path,
                                      withDestinationPath: dir.appendingPathComponent("outside.lua").path)
            let root = modules.path
            #expect(ModuleFiles.file(of: "plain", in: root) == root + "/plain.lua")
            #expect(ModuleFiles.file(of: "pkg", in: root) == root + "/pkg/init.lua")
            #expect(ModuleFiles.file(of: "escape", in: root) == nil)
            #expect(ModuleFiles.file(of: "missing", in: root) == nil)
            #expect(ModuleFiles.file(of: "plain", in: root + "/nowhere") == nil)
            #expect(ModuleFiles.file(of: "plain", in: root + "\u{0}") == nil)
        }
    }
}
