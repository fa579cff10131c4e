import BloodMagic
import Testing

private final class Profile {
    @Final var almostImmutable: String
    @Final var nickname: String?
}

@Suite struct FinalTests {
    @Test func theFirstAssignmentStores() throws {
        let profile = Profile()
        #expect(!profile.$almostImmutable.isSet)
        profile.almostImmutable = "Initial value"
        #expect(profile.almostImmutable == "Initial value")
        #expect(profile.$almostImmutable.isSet)
    }

    @Test func aSecondAssignmentFailsEvenWithTheSameValue() throws {
        let profile = Profile()
        try profile.$almostImmutable.set("Initial value")
        let other = #expect(throws: SpellError.self) { try profile.$almostImmutable.set("Another value") }
        #expect(other?.description == "Profile.almostImmutable is @Final and already set to \"Initial value\"; cannot assign \"Another value\"")
        let same = #expect(throws: SpellError.self) { try profile.$almostImmutable.set("Initial value") }
        #expect(same == .finalAlreadySet(property: "almostImmutable", container: "Profile", oldValue: "\"Initial value\"", newValue: "\"Initial value\""))
        #expect(profile.almostImmutable == "Initial value")
    }

    @Test func aSecondAssignmentFailsWithNilAndAfterNil() throws {
        let profile = Profile()
        try profile.$nickname.set("alex")
        let error = #expect(throws: SpellError.self) { try profile.$nickname.set(nil) }
        #expect(error?.description == "Profile.nickname is @Final and already set to \"alex\"; cannot assign nil")
        let fresh = Profile()
        try fresh.$nickname.set(nil)
        #expect(fresh.$nickname.isSet)
        #expect(throws: SpellError.self) { try fresh.$nickname.set("late") }
        #expect(fresh.nickname == nil)
    }

    @Test func theTrapMessageNamesPropertyContainerAndBothValues() {
        #expect(Final<Int>.reassignmentMessage(property: "count", container: "Counter", oldValue: 1, newValue: 1)
            == "Counter.count is @Final and already set to 1; cannot assign 1")
        #expect(Final<String?>.reassignmentMessage(property: "name", container: "User", oldValue: Optional("a") as Any, newValue: Optional<String>.none as Any)
            == "User.name is @Final and already set to \"a\"; cannot assign nil")
    }

    @Test func readingBeforeTheFirstAssignment() {
        let profile = Profile()
        #expect(profile.nickname == nil)
        let error = #expect(throws: SpellError.self) { try profile.$almostImmutable.get() }
        #expect(error?.description == "Profile.almostImmutable is @Final and was read before its first assignment")
    }
}
