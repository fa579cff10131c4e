// Instruction counts of a spell's first read, for a machine too busy for
// wall-clock figures. Run it twice under callgrind, with and without the
// reads; the difference divided by the count is the cost of one read:
//
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//     .build/release/SpellInstructionCounts first-read 100000 skip
//   valgrind ... SpellInstructionCounts first-read 100000 read
//
// Modes: `first-read` (containers made beforehand, then each one's first
// @Injectable read, as SpellBenchmarks' goal row), `new-and-read` (making
// the container is part of the measured work), `warm-read` (one container,
// read again and again), `resolve` (`registry.resolve`), `singleton-first-read`
// (as `first-read`, for a singleton made beforehand); issue 29:
// `named-first-read` (as `first-read`, for `@Injectable(named:)`),
// `resolve-named` (`registry.resolve(named:)`), `resolve-all-10`
// (`registry.resolveAll` of 10 registrations), `resolve-arguments`
// (`registry.resolve(arguments:)` with one Int).
import BenchSupport
import BloodMagic
import Foundation

final class RequestManager {
    var requests = 0
}

final class InjectableContainer {
    @Injectable(registry: countRegistry) var manager: RequestManager
}

final class CurrentRegistryContainer {
    @Injectable var manager: RequestManager
}

final class SharedClock: Sendable {
    let zone = 0
}

final class SingletonContainer {
    @Injectable(registry: countRegistry) var clock: SharedClock
}

extension SpellName<RequestManager> {
    static var primary: Self { "primary" }
}

final class NamedInjectableContainer {
    @Injectable(named: .primary, registry: countRegistry) var manager: RequestManager
}

final class ArgumentModel {
    let id: Int
    init(id: Int) { self.id = id }
}

protocol CountedPlugin: AnyObject {}
final class CountedPluginImpl: CountedPlugin {}

let countRegistry = Registry()
countRegistry.register(RequestManager.self, named: .primary) { _ in RequestManager() }
countRegistry.register(ArgumentModel.self, arguments: Int.self) { _, id in ArgumentModel(id: id) }
for index in 0..<10 {
    countRegistry.register((any CountedPlugin).self, named: SpellName("plugin \(index)")) { _ in CountedPluginImpl() }
}
countRegistry.register(RequestManager.self) { _ in RequestManager() }
countRegistry.register(SharedClock.self, scope: .singleton) { _ in SharedClock() }
blackHole(SingletonContainer().clock)
Registry.shared.register(RequestManager.self) { _ in RequestManager() }

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]) else {
    print("usage: SpellInstructionCounts first-read|singleton-first-read|new-and-read|warm-read|resolve|first-read-current|named-first-read|resolve-named|resolve-all-10|resolve-arguments COUNT read|skip")
    exit(2)
}
let reads = arguments[3] == "read"

switch arguments[1] {
case "first-read":
    let containers = (0..<count).map { _ in identity(InjectableContainer()) }
    if reads { for container in containers { blackHole(container.manager) } }
    blackHole(containers)
case "singleton-first-read":
    let containers = (0..<count).map { _ in identity(SingletonContainer()) }
    if reads { for container in containers { blackHole(container.clock) } }
    blackHole(containers)
case "first-read-current":
    let containers = (0..<count).map { _ in identity(CurrentRegistryContainer()) }
    if reads { for container in containers { blackHole(container.manager) } }
    blackHole(containers)
case "new-and-read":
    if reads {
        for _ in 0..<count {
            let container = InjectableContainer()
            blackHole(container.manager)
        }
    }
case "warm-read":
    let container = identity(InjectableContainer())
    blackHole(container.manager)
    if reads { for _ in 0..<count { blackHole(container.manager) } }
case "resolve":
    let sender = identity(RequestManager())
    if reads { for _ in 0..<count { blackHole(try! countRegistry.resolve(RequestManager.self, for: sender, property: "manager")) } }
case "named-first-read":
    let containers = (0..<count).map { _ in identity(NamedInjectableContainer()) }
    if reads { for container in containers { blackHole(container.manager) } }
    blackHole(containers)
case "resolve-named":
    let sender = identity(RequestManager())
    if reads {
        for _ in 0..<count { blackHole(try! countRegistry.resolve(RequestManager.self, named: .primary, for: sender, property: "manager")) }
    }
case "resolve-arguments":
    let sender = identity(RequestManager())
    if reads {
        for index in 0..<count { blackHole(try! countRegistry.resolve(ArgumentModel.self, arguments: index, for: sender, property: "model")) }
    }
case "resolve-all-10":
    let sender = identity(RequestManager())
    if reads { for _ in 0..<count { blackHole(try! countRegistry.resolveAll((any CountedPlugin).self, for: sender)) } }
default:
    print("unknown mode \(arguments[1])")
    exit(2)
}
