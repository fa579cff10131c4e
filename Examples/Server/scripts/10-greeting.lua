-- 10-greeting.lua: who says hello on GET /hello/:name.
--
-- GreetingController declares `@Injectable var greeter: Greeter`. One
-- Greeter serves every request (a singleton of the wiring in force); edit
-- the greeting while the server runs and the next request gets a new one.
bm.singleton {
  type = "Greeter",
  init = function()
    return Greeter.new { greeting = "Hello", punctuation = "!" }
  end,
}
