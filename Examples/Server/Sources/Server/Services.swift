import BloodMagicLua
import Hummingbird

/// Says hello. `scripts/10-greeting.lua` makes the one the wiring in force
/// uses (`bm.singleton`, `Greeter.new { greeting = "Hello", ... }`); a reload
/// that changes the script makes a new one.
///
/// Immutable, hence `Sendable`: request handlers on any thread share it.
final class Greeter: Sendable {
    /// What `Greeter.new { ... }` takes, decoded from the script's table.
    struct Configuration: Decodable {
        var greeting: String
        var punctuation: String?
    }

    let greeting: String
    let punctuation: String

    init(_ configuration: Configuration) {
        greeting = configuration.greeting
        punctuation = configuration.punctuation ?? "!"
    }

    /// `Hello, Ada!`.
    func greet(_ name: String) -> String {
        "\(greeting), \(name)\(punctuation)"
    }
}

/// The shop's prices, in cents: a plain value that `scripts/20-prices.lua`
/// returns as a table (`{ currency = "EUR", prices = { apple = 120 } }`),
/// decoded into Swift on each resolution.
struct PriceList: Codable, Sendable, ResponseEncodable {
    var currency: String
    var prices: [String: Int]
}

/// `GET /hello/:name`.
struct Greeting: ResponseEncodable {
    var message: String
}

/// `GET /prices/:item`.
struct ItemPrice: ResponseEncodable {
    var item: String
    var price: Int
    var currency: String
}

/// `GET /health`: answered without any wiring.
struct Health: ResponseEncodable {
    var status: String
}
