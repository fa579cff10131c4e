/// What the registry's closure for a Lua initializer holds, as one object
/// (one reference to capture and retain): the function, whether it takes
/// the sender, where it was registered and for which type, the load token
/// that revokes it, and the state, which it keeps alive.
final class LuaInitializerBinding: Sendable {
    let function: LuaReference
    let takesSender: Bool
    let source: String
    let typeName: String
    let token: LoadToken
    let state: LuaState

    init(function: LuaReference, takesSender: Bool, source: String, typeName: String, token: LoadToken, state: LuaState) {
        self.function = function
        self.takesSender = takesSender
        self.source = source
        self.typeName = typeName
        self.token = token
        self.state = state
    }
}
