-- 20-prices.lua: the price list behind GET /prices and GET /prices/:item.
--
-- PricesController declares `@Injectable var prices: PriceList`, a Swift
-- struct: the table returned here is decoded into it on each request, in
-- cents.
bm.initializer {
  type = "PriceList",
  init = function()
    return {
      currency = "EUR",
      prices = { apple = 120, pear = 95, plum = 60 },
    }
  end,
}
