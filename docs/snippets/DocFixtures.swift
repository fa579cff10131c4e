// The types the documentation's Swift snippets take as given (a request
// manager, a client protocol, a header view …). scripts/test-docs compiles
// every Swift block of README.md, docs/ and the DocC articles against this
// file and the library, warnings as errors, so a snippet that drifts from
// the API fails the tests.
import BloodMagicLua
import Foundation

/// A service the snippets inject.
public final class RequestManager: DefaultConstructible, @unchecked Sendable {
    /// Where requests go.
    public let baseURL: String
    /// Seconds before a request gives up.
    public var timeout: Double = 30
    /// A manager for example.com.
    public init() { baseURL = "https://example.com" }
    /// A manager for `baseURL`.
    public init(baseURL: String) { self.baseURL = baseURL }
    /// Pretends to fetch `path`.
    public func fetch(_ path: String) throws -> String { baseURL + "/" + path }
    /// Pretends to retry the last request `times` times, `delay` seconds apart; returns how many ran.
    public func retry(_ times: Int, delay: Double) -> Int { times }
}

/// A client protocol the snippets inject by protocol.
public protocol RequestClient: AnyObject {}

/// A client made for its owner.
public final class HTTPClient: RequestClient {
    /// The object the client was made for.
    public weak var owner: AnyObject?
    /// A client for `owner`.
    public init(owner: AnyObject?) { self.owner = owner }
}

/// A service made by default construction.
public final class ProgressViewService: DefaultConstructible {
    /// A service.
    public init() {}
}

/// A view built from a template.
public struct HeaderView: Decodable {
    /// The header's title.
    public var title: String
}

/// Configuration decoded from a Lua table.
public struct FeedConfig: Decodable, DefaultConstructible {
    /// Items per page.
    public var pageSize: Int = 20
    /// The default configuration.
    public init() {}
}

/// A screen whose dependencies the scripts serve (declared for the manifest).
public final class UsersViewController: DefaultConstructible {
    /// Its request manager.
    @Injectable public var requestManager: RequestManager
    /// Its client, by protocol.
    @Injectable public var client: any RequestClient
    /// A screen.
    public init() {}
}

/// Another screen, with a preference.
public final class SettingsViewController: DefaultConstructible {
    /// The user's nickname.
    @Preference public var nickname: String = "anon"
    /// A screen.
    public init() {}
}

/// A screen made only with arguments (declared with `declare(instance:)`).
public final class ProfileScreen {
    /// Whose profile it shows.
    public let user: String
    /// Its request manager.
    @Injectable public var requestManager: RequestManager
    /// A screen for `user`.
    public init(user: String) { self.user = user }
}
