@_spi(BloodMagicInternals) import BloodMagic
import Foundation
import Synchronization

/// Eight threads each read `property` of 200 new containers, taking turns
/// through the property itself (`read`), the typed `resolve` and the named
/// path (`resolveIfRegistered`); returns how many distinct objects they
/// saw. The race to a kept value's first read (a singleton's slot, a
/// custom scope's).
func distinctObjectsReadThreeWays<Container: AnyObject, Value: AnyObject>(
    _ registry: Registry, _ type: Value.Type, property: String,
    container make: @escaping @Sendable () -> Container, read: @escaping @Sendable (Container) -> Value
) -> Int {
    let seen = Lock<Set<ObjectIdentifier>>([])
    runOnThreads(8) { thread in
        var mine: Set<ObjectIdentifier> = []
        for round in 0..<200 {
            let value: Value
            switch (thread + round) % 3 {
            case 0: value = read(make())
            case 1: value = try! registry.resolve(Value.self, for: make(), property: property)
            default:
                value = try! registry.resolveIfRegistered(
                    type: SpellTypeKey(Value.self), container: ContainerDescriptor(make()), property: property) as! Value
            }
            mine.insert(ObjectIdentifier(value))
        }
        seen.withLock { $0.formUnion(mine) }
    }
    return seen.withLock { $0.count }
}
