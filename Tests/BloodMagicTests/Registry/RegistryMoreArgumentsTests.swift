import BloodMagic
import Testing

// Issue 29, runtime arguments beyond two: three and four typed arguments,
// at registration, at resolution and in a factory property; a mismatch in
// count or type names both sides.

private final class Upload: Sendable {
    let path: String
    let size: Int
    let retries: Int
    let urgent: Bool
    init(path: String, size: Int, retries: Int, urgent: Bool = false) {
        self.path = path
        self.size = size
        self.retries = retries
        self.urgent = urgent
    }
}

private final class UploadScreen {
    @Injectable var makeUpload: (String, Int, Int) throws -> Upload
    @Injectable var makeUrgent: (String, Int, Int, Bool) throws -> Upload
}

@Suite struct RegistryMoreArgumentsTests {
    @Test func threeAndFourTypedArguments() throws {
        let registry = Registry()
        registry.register(Upload.self, arguments: String.self, Int.self, Int.self) { _, path, size, retries in
            Upload(path: path, size: size, retries: retries)
        }
        let made = try registry.resolve(Upload.self, arguments: "/a", 10, 3)
        #expect(made.path == "/a" && made.size == 10 && made.retries == 3)
        let four = Registry()
        four.register(Upload.self, arguments: String.self, Int.self, Int.self, Bool.self) { _, path, size, retries, urgent in
            Upload(path: path, size: size, retries: retries, urgent: urgent)
        }
        let urgent = try four.resolve(Upload.self, arguments: "/b", 20, 1, true)
        #expect(urgent.path == "/b" && urgent.size == 20 && urgent.retries == 1 && urgent.urgent)
        #expect(four.entries.first { $0.kind == .initializer }?.arguments == ["String", "Int", "Int", "Bool"])
    }

    @Test func aMismatchNamesBothSides() {
        let registry = Registry()
        registry.register(Upload.self, arguments: String.self, Int.self, Int.self, fileID: "App/Wiring.swift", line: 7) {
            _, path, size, retries in Upload(path: path, size: size, retries: retries)
        }
        #expect(throws: SpellError.argumentMismatch(
            type: "Upload", source: "App/Wiring.swift:7", expected: ["String", "Int", "Int"], given: ["String", "Int", "Double"])
        ) { try registry.resolve(Upload.self, arguments: "/a", 1, 2.5) }
        #expect(throws: SpellError.argumentMismatch(
            type: "Upload", source: "App/Wiring.swift:7", expected: ["String", "Int", "Int"], given: ["String", "Int", "Int", "Bool"])
        ) { try registry.resolve(Upload.self, arguments: "/a", 1, 2, false) }
        #expect(throws: SpellError.argumentMismatch(
            type: "Upload", source: "App/Wiring.swift:7", expected: ["String", "Int", "Int"], given: ["String", "Int"])
        ) { try registry.resolve(Upload.self, arguments: "/a", 1) }
        // A registration of two resolved with three.
        let two = Registry()
        two.register(Upload.self, arguments: String.self, Int.self, fileID: "App/Two.swift", line: 3) { _, path, size in
            Upload(path: path, size: size, retries: 0)
        }
        #expect(throws: SpellError.argumentMismatch(
            type: "Upload", source: "App/Two.swift:3", expected: ["String", "Int"], given: ["String", "Int", "Int"])
        ) { try two.resolve(Upload.self, arguments: "/a", 1, 2) }
    }

    /// The factory of a registration of three or four arguments.
    @Test func aPropertyHoldsTheFactoryOfThreeOrFour() throws {
        let registry = Registry()
        registry.register(Upload.self, arguments: String.self, Int.self, Int.self) { sender, path, size, retries in
            Upload(path: "\(type(of: sender)):" + path, size: size, retries: retries)
        }
        let screen = Registry.withCurrent(registry) { UploadScreen() }
        let made = try screen.makeUpload("/c", 3, 2)
        #expect(made.path == "UploadScreen:/c" && made.size == 3 && made.retries == 2)
        let four = Registry()
        four.register(Upload.self, arguments: String.self, Int.self, Int.self, Bool.self) { _, path, size, retries, urgent in
            Upload(path: path, size: size, retries: retries, urgent: urgent)
        }
        let other = Registry.withCurrent(four) { UploadScreen() }
        #expect(try other.makeUrgent("/d", 3, 2, true).urgent)
        // The three-argument factory is not registered there.
        #expect(throws: SpellError.self) { try other.$makeUpload.value() }
    }
}
