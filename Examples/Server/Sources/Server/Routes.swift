import Hummingbird

/// The API: every route answers JSON.
///
/// | route | served by |
/// | --- | --- |
/// | `GET /health` | nothing the scripts wire |
/// | `GET /hello/:name` | ``GreetingController`` (`@Injectable var greeter: Greeter`, `scripts/10-greeting.lua`) |
/// | `GET /prices` | ``PricesController`` (`@Injectable var prices: PriceList`, `scripts/20-prices.lua`) |
/// | `GET /prices/:item` | the same; 404 for an item the list does not have |
func makeRouter() -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: WiringErrorMiddleware())
    router.get("health") { _, _ in Health(status: "ok") }
    router.get("hello/:name") { _, context in
        try GreetingController().hello(context.parameters.require("name"))
    }
    router.get("prices") { _, _ in
        try PricesController().all()
    }
    router.get("prices/:item") { _, context in
        let item = try context.parameters.require("item")
        guard let price = try PricesController().price(of: item) else {
            throw HTTPError(.notFound, message: "no price for \(item)")
        }
        return price
    }
    return router
}

/// Turns an error a route throws that is not an HTTP error — a wiring error
/// from `try $x.value()` (`SpellError`, or the `LuaError` of a script that
/// raised) — into a 500 whose body says to look at the log, and logs it
/// with the request: a broken wiring costs requests, never the process.
struct WiringErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            context.logger.error(
                "wiring error serving \(request.method) \(request.uri.path): \(error)",
                metadata: ["error.type": .string(String(describing: type(of: error)))])
            throw HTTPError(.internalServerError, message: "the service is not wired; the server's log says why")
        }
    }
}
