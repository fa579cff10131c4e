import Testing
@testable import BloodMagicLua

@Suite("Sandbox")
struct LuaSandboxTests {
    /// Runs `code` in a default (safe) state and returns the error message.
    func failure(_ code: String) throws -> String {
        let state = try LuaState()
        let error = try #require(throws: LuaError.self) { try state.run(code, name: "@sandbox.lua") }
        return error.message
    }

    @Test(arguments: [
        ("os.execute('true')", "os.execute is not available in the sandbox"),
        ("io.open('/etc/passwd')", "io.open is not available in the sandbox"),
        ("io.popen('ls')", "io.popen is not available in the sandbox"),
        ("package.loadlib('libc.so.6', 'puts')", "package.loadlib is not available in the sandbox"),
        ("dofile('/etc/passwd')", "dofile is not available in the sandbox"),
        ("loadfile('/etc/passwd')", "loadfile is not available in the sandbox"),
        ("os.exit(3)", "os.exit is not available in the sandbox"),
        ("os.getenv('HOME')", "os.getenv is not available in the sandbox"),
    ])
    func deniedFunctionsSayWhy(code: String, expected: String) throws {
        let message = try failure(code)
        #expect(message == "sandbox.lua:1: \(expected) (the host must opt in to unsafe libraries)")
    }

    @Test func requireOfACModuleFails() throws {
        let message = try failure("require('socket.core')")
        #expect(message.hasPrefix("sandbox.lua:1: module 'socket.core' not found"))
        #expect(!message.contains(".so"))
    }

    @Test func binaryChunksAreRefused() throws {
        // Make a real binary chunk with an unsafe state, then offer it to a safe one.
        let unsafe = try LuaState(libraries: .unsafe)
        let chunk = try unsafe.withStack { (lua) throws(LuaError) -> LuaBytes in
            try lua.load("return string.dump(function() return 1 end)", name: "=dump")
            try lua.call(arguments: 0, results: 1)
            defer { lua.pop() }
            return try lua.value(at: -1)
        }
        #expect(chunk.bytes.first == 0x1B)
        let state = try LuaState()
        try state.withStack { (lua) throws(LuaError) in
            lua.push(chunk)
            lua.setRawGlobal("chunk")
        }
        let result = try state.run("return load(chunk)", name: "=t")
        #expect(result.first == .nil)
        #expect(result.count == 2)
        #expect(result[1].stringValue?.contains("attempt to load a binary chunk") == true)
        let explicit = try #require(throws: LuaError.self) { try state.run("return load(chunk, 'c', 'b')", name: "@b.lua") }
        #expect(explicit.message.contains("binary chunks are not allowed"))
        // Swift-side loading refuses binary too.
        let direct = try #require(throws: LuaError.self) {
            try state.withStack { (lua) throws in
                try chunk.bytes.withUnsafeBytes { raw in
                    try lua.load(bytes: raw, name: "=bin")
                }
            }
        }
        #expect(direct.kind == .syntax)
    }

    @Test func stringDumpAndDebugAreAbsent() throws {
        let state = try LuaState()
        #expect(try state.run("return string.dump, debug, os.time ~= nil, ('x').dump", name: "=t")
            == [.nil, .nil, .boolean(true), .nil])
    }

    @Test func textLoadStillWorks() throws {
        let state = try LuaState()
        #expect(try state.evaluate("return load('return 6 * 7')()", as: Int.self) == 42)
    }

    @Test func unsafeOpensEverything() throws {
        let state = try LuaState(libraries: .unsafe)
        #expect(try state.run("return type(io.open), type(debug.traceback), type(os.execute)", name: "=t")
            == [.string("function"), .string("function"), .string("function")])
    }

    /// Without the package library there is no `_LOADED` table: setting the
    /// search path must be a no-op that leaves the stack as it was.
    @Test func packagePathWithoutThePackageLibraryIsANoOp() throws {
        let state = try LuaState(libraries: [.base])
        let (before, after) = state.withStack { lua -> (Int32, Int32) in
            let before = lua.top
            lua.setPackagePath("/nowhere/?.lua")
            return (before, lua.top)
        }
        #expect(before == after)
        #expect(try state.run("return package, require", name: "=t") == [.nil, .nil])
    }

    /// The sandbox's require ignores package.path (issue 11), so there is
    /// nothing to set; with the unsafe libraries Lua's own require uses it.
    @Test func packagePathIsSetOnlyWhereRequireUsesIt() throws {
        let state = try LuaState(libraries: [.base, .package])
        state.withStack { $0.setPackagePath("/somewhere/?.lua") }
        #expect(try state.run("return package.path", name: "=t") == [.nil])
        let unsafe = try LuaState(libraries: .unsafe)
        unsafe.withStack { $0.setPackagePath("/somewhere/?.lua") }
        #expect(try unsafe.evaluate("return package.path", as: String.self) == "/somewhere/?.lua")
    }
}
