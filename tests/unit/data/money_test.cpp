#include "gpusel/data/money.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"

using namespace gpusel;

namespace {

Rates sample_rates() {
  return parse_rates(nlohmann::json::parse(R"({"base": "USD", "as_of": "2026-11-28",
      "source": "test", "rates": {"USD": 1, "CNY": 7.0, "EUR": 0.8}})"),
                     "test");
}

Gpu card_with(std::vector<Price> prices) {
  Gpu g;
  g.id = "x";
  g.prices = std::move(prices);
  return g;
}

}  // namespace

TEST_CASE("budgets parse in every documented form") {
  CHECK(parse_budget("15000").amount == 15000);
  CHECK(parse_budget("15000").currency.empty());
  CHECK(parse_budget("15000CNY").currency == "CNY");
  CHECK(parse_budget("15000 eur").currency == "EUR");
  CHECK(parse_budget("$15000").currency == "USD");
  CHECK(parse_budget("¥15000").currency == "CNY");
  CHECK(parse_budget("€2.5k").amount == 2500);
  CHECK(parse_budget("1.5M").amount == 1.5e6);
  // Scientific notation, as --params takes it; an 'e' before letters stays a word.
  CHECK(parse_budget("1e4").amount == 1e4);
  CHECK(parse_budget("2.5E+5 EUR").amount == 2.5e5);
  CHECK(parse_budget("2.5E+5 EUR").currency == "EUR");
  CHECK(parse_budget("1e3k").amount == 1e6);
  CHECK(parse_budget("15 EUR").amount == 15);
}

TEST_CASE("bad budgets are usage errors that quote the input") {
  for (const char* bad : {"-5", "", "abc", "0", "15000XYZW", "$15000EUR", "1e400", "15 000", "1e16",
                          "1e", "1e+", "1e4e4", "1ee4"}) {
    INFO(bad);
    try {
      parse_budget(bad);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::usage);
      CHECK(std::string(e.what()).find(std::string("'") + bad + "'") != std::string::npos);
    }
  }
}

TEST_CASE("conversion goes through the base currency") {
  const Rates r = sample_rates();
  CHECK(convert(100, "USD", "CNY", r) == Approx(700));
  CHECK(convert(700, "CNY", "EUR", r) == Approx(80));
  CHECK(convert(5, "EUR", "EUR", r) == 5);
  CHECK_THROWS_AS(convert(1, "USD", "XAU", r), Error);
}

TEST_CASE("the session currency follows GPUSEL_CURRENCY, then the locale, then USD") {
  CHECK(default_currency("eur", "zh_CN.UTF-8", "", "") == "EUR");
  CHECK(default_currency("", "zh_CN.UTF-8", "de_DE", "en_US") == "CNY");
  CHECK(default_currency("", "", "de_DE.UTF-8", "zh_CN") == "EUR");
  CHECK(default_currency("", "", "", "zh_CN.UTF-8") == "CNY");
  CHECK(default_currency("", "C.UTF-8", "", "zh_CN") == "USD");
  CHECK(default_currency("", "", "", "") == "USD");
  CHECK(currency_for_locale("en_GB.UTF-8") == "GBP");
  CHECK(currency_for_locale("POSIX").empty());
}

TEST_CASE("charge prefers current prices, then the asked currency, then the newest") {
  const Rates r = sample_rates();
  const Gpu g = card_with({{1599, "USD", "msrp", "2022-10-12", ""},
                           {12999, "CNY", "msrp", "2022-10-12", ""},
                           {2000, "USD", "street", "2026-10-01", ""},
                           {1100, "USD", "used", "2026-10-01", ""}});
  auto usd = charge(g, {"USD", false, false, ""}, r);
  REQUIRE(usd);
  CHECK(usd->amount == 2000);
  CHECK_FALSE(usd->converted);
  auto cny = charge(g, {"CNY", false, false, ""}, r);
  CHECK(cny->amount == Approx(14000));
  CHECK(cny->converted);
  CHECK(charge(g, {"USD", false, true, ""}, r)->amount == 1100);
  const Gpu old =
      card_with({{1499, "USD", "msrp", "2020-09-01", ""}, {700, "USD", "used", "2026-09-01", ""}});
  CHECK(charge(old, {"USD", false, false, ""}, r)->used);
  CHECK(charge(old, {"USD", true, false, ""}, r)->amount == 1499);
  CHECK_FALSE(charge(card_with({}), {"USD", false, false, ""}, r));
}

TEST_CASE("a price dated after today is never charged") {
  const Rates r = sample_rates();
  const Gpu g = card_with(
      {{100, "USD", "street", "9999-12-31", ""}, {2000, "USD", "street", "2026-10-01", ""}});
  CHECK(charge(g, {"USD", false, false, "2026-12-05"}, r)->amount == 2000);
  CHECK(charge(g, {"USD", false, false, "9999-12-31"}, r)->amount == 100);
  CHECK_FALSE(charge(card_with({{100, "USD", "street", "2027-01-01", ""}}),
                     {"USD", false, false, "2026-12-05"}, r));
  // Without a date, the system's: a price of the year 9999 is still in the future.
  CHECK(charge(g, {"USD", false, false, ""}, r)->amount == 2000);
}

TEST_CASE("a vendor quote is a current price: it wins over an older MSRP and ties with street") {
  const Rates r = sample_rates();
  const Gpu g = card_with(
      {{25000, "USD", "msrp", "2023-11-13", ""}, {31000, "USD", "quote", "2026-09-01", ""}});
  CHECK(charge(g, {"USD", false, false, ""}, r)->amount == 31000);
  // Same class as a street price: the newer of the two is charged.
  const Gpu both = card_with(
      {{31000, "USD", "quote", "2026-09-01", ""}, {29000, "USD", "street", "2026-06-01", ""}});
  CHECK(charge(both, {"USD", false, false, ""}, r)->amount == 31000);
}

TEST_CASE("an amount given with a flag may be zero and its errors name the flag") {
  CHECK(parse_amount("0", "--host-cost").amount == 0);
  CHECK(parse_amount("12999CNY", "--card-price").currency == "CNY");
  CHECK_THROWS_WITH(parse_amount("7Q", "--card-price"),
                    Catch::Contains("invalid --card-price '7Q'"));
  CHECK_THROWS_WITH(parse_amount("-5", "--host-cost"), Catch::Contains("must not be negative"));
  CHECK_THROWS_WITH(parse_budget("0"), Catch::Contains("invalid budget '0'"));
}
