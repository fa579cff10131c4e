import BloodMagicLua

// The request-scoped objects whose properties the scripts serve. Each
// request makes a new one, so it resolves through the wiring in force when
// the request arrives: after a reload, the next request sees the new wiring
// (an object kept across requests would keep the values it was injected
// with; see the LiveReload article).
//
// On request paths the injected values are read with `try $x.value()`: a
// wiring error (nothing serves the property, the script raised, returned
// nil or a value of the wrong type) is thrown, and WiringErrorMiddleware
// turns it into a 500 and a logged error. Reading `greeter` directly would
// trap on such an error and take the server down.
//
// They are `DefaultConstructible` so that the host can declare them for the
// app's manifest (`host.declare`), which `bmlua check --manifest` reads.

/// Serves `GET /hello/:name`.
final class GreetingController: DefaultConstructible {
    @Injectable var greeter: Greeter

    init() {}

    func hello(_ name: String) throws -> Greeting {
        Greeting(message: try $greeter.value().greet(name))
    }
}

/// Serves `GET /prices` and `GET /prices/:item`.
final class PricesController: DefaultConstructible {
    @Injectable var prices: PriceList

    init() {}

    func all() throws -> PriceList {
        try $prices.value()
    }

    /// The price of `item`, or nil when the list has none.
    func price(of item: String) throws -> ItemPrice? {
        let list = try $prices.value()
        return list.prices[item].map { ItemPrice(item: item, price: $0, currency: list.currency) }
    }
}
