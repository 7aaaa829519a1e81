#include "gpusel/data/money.hpp"

#include <algorithm>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Symbols users type. "¥" is read as CNY: gpusel's source articles and users are Chinese;
// Japanese users write JPY or set the locale.
const std::map<std::string, std::string>& symbols() {
  static const std::map<std::string, std::string> m{{"$", "USD"},  {"US$", "USD"}, {"¥", "CNY"},
                                                    {"￥", "CNY"}, {"RMB", "CNY"}, {"€", "EUR"},
                                                    {"£", "GBP"},  {"₩", "KRW"},   {"₹", "INR"}};
  return m;
}

double suffix_scale(std::string_view s) {
  if (s.empty()) return 1;
  if (s == "k" || s == "K") return 1e3;
  if (s == "m" || s == "M") return 1e6;
  return 0;
}

// Longer inputs are refused (budget) or ignored (a locale) before any parsing.
constexpr std::size_t kMaxBudgetText = 64;
constexpr std::size_t kMaxCurrencyText = 16;
constexpr std::size_t kMaxLocaleText = 256;
constexpr double kMaxBudget = 1e15;

// `what`: "budget", or the flag an amount was given with ("--card-price").
[[noreturn]] void bad_budget(std::string_view what, std::string_view text, const std::string& why) {
  throw usage_error("invalid " + std::string(what) + " '" + quote_input(text) + "': " + why +
                    " (forms: 15000, 15000CNY, 15k EUR, $15000, ¥15000)");
}

int recency_class(const Price& p, const PricePolicy& pol) {
  // A quote is a current price for parts sold under quotation, as current as a street price.
  if (p.kind == "street" || p.kind == "estimate" || p.kind == "quote") return 0;
  if (p.kind == "used") return pol.prefer_used ? -1 : 1;
  return 2;  // msrp
}

}  // namespace

Rates parse_rates(const nlohmann::json& doc, const std::string& origin) {
  Rates r;
  try {
    r.base = doc.at("base").get<std::string>();
    r.as_of = doc.at("as_of").get<std::string>();
    r.source = doc.value("source", "");
    for (const auto& [code, v] : doc.at("rates").items()) {
      const double x = v.get<double>();
      if (!(x > 0) || !std::isfinite(x))
        throw data_error(origin + ": rate for " + code + " must be > 0");
      r.per_base[code] = x;
    }
  } catch (const nlohmann::json::exception& e) {
    throw data_error(origin + ": not a rates table (" + std::string(e.what()) + ")");
  }
  r.per_base[r.base] = 1.0;
  return r;
}

double convert(double amount, const std::string& from, const std::string& to, const Rates& r) {
  if (from == to) return amount;
  auto f = r.per_base.find(from), t = r.per_base.find(to);
  if (f == r.per_base.end() || t == r.per_base.end())
    throw usage_error("no exchange rate for " + (f == r.per_base.end() ? from : to) +
                      " in the rates table (dated " + r.as_of + ")");
  return amount / f->second * t->second;
}

std::string normalise_currency(std::string_view code) {
  auto unknown = [&code]() {
    return usage_error("unknown currency '" + quote_input(code) +
                       "' (use an ISO code: USD, CNY, EUR)");
  };
  if (code.size() > kMaxCurrencyText) throw unknown();
  std::string c = upper(code);
  if (auto it = symbols().find(std::string(code)); it != symbols().end()) return it->second;
  if (auto it = symbols().find(c); it != symbols().end()) return it->second;
  auto capital = [](char ch) { return ch >= 'A' && ch <= 'Z'; };
  if (c.size() != 3 || !std::all_of(c.begin(), c.end(), capital)) throw unknown();
  return c;
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The parts of a budget as typed: "¥ 15.5 k CNY" -> symbol "¥", number "15.5", scale "k",
// code "CNY". One left-to-right pass; nullopt when the text has any other shape.
struct BudgetParts {
  std::string_view symbol, number, exponent, scale, code;
};

std::string_view take_while(std::string_view& s, bool (*pred)(char)) {
  std::size_t n = 0;
  while (n < s.size() && pred(s[n])) ++n;
  auto out = s.substr(0, n);
  s.remove_prefix(n);
  return out;
}

std::optional<BudgetParts> split_budget(std::string_view s) {
  BudgetParts p;
  s = trim(s);
  p.symbol = trim(take_while(s, [](char c) { return !is_digit(c); }));
  p.number = take_while(s, [](char c) { return is_digit(c) || c == '.'; });
  // "1e6", "2.5E+5": the form --params takes. An 'e' not followed by digits is a word.
  const std::size_t sign = s.size() > 1 && s[1] == '+' ? 1 : 0;
  if (s.size() > 1 + sign && (s[0] == 'e' || s[0] == 'E') && is_digit(s[1 + sign])) {
    s.remove_prefix(1 + sign);
    p.exponent = take_while(s, is_digit);
  }
  s = trim(s);
  std::string_view word = take_while(s, is_alpha);
  // "15k", "15k EUR", "15kEUR": a leading k or m before a three-letter code is the scale.
  if (word.size() == 1 || (word.size() == 4 && suffix_scale(word.substr(0, 1)) > 0)) {
    p.scale = word.substr(0, 1);
    word.remove_prefix(1);
    if (word.empty()) {
      s = trim(s);
      word = take_while(s, is_alpha);
    }
  }
  p.code = word;
  if (!trim(s).empty() || p.number.empty()) return std::nullopt;
  return p;
}

// 10^digits of an exponent; anything past 10^99 is out of every budget's range anyway.
double power_of_ten(std::string_view what, std::string_view text, std::string_view digits) {
  if (digits.empty()) return 1;
  const auto e = parse_decimal(digits);
  if (!e || *e > 99) bad_budget(what, text, "more than 1e15");
  return std::pow(10.0, *e);
}

}  // namespace

namespace {

Budget parse_money(std::string_view text, std::string_view what, bool allow_zero) {
  if (text.size() > kMaxBudgetText)
    bad_budget(what, text, "longer than " + std::to_string(kMaxBudgetText) + " characters");
  if (text.find('-') != std::string_view::npos)
    bad_budget(what, text, allow_zero ? "it must not be negative" : "it must be positive");
  const auto parts = split_budget(text);
  if (!parts) bad_budget(what, text, "not an amount");
  const auto number = parse_decimal(parts->number);
  if (!number) bad_budget(what, text, "not an amount");
  const double scale = suffix_scale(parts->scale);
  if (!(scale > 0)) bad_budget(what, text, "unknown currency");
  const double amount = *number * scale * power_of_ten(what, text, parts->exponent);
  if (!(amount > 0 || (allow_zero && amount == 0)) || !std::isfinite(amount))
    bad_budget(what, text, allow_zero ? "it must not be negative" : "it must be positive");
  if (amount > kMaxBudget) bad_budget(what, text, "more than 1e15");
  const std::string sym(parts->symbol), code(parts->code);
  if (!sym.empty() && !code.empty() && symbols().count(sym) && upper(code) != symbols().at(sym))
    bad_budget(what, text, "two different currencies");
  Budget b{amount, ""};
  try {
    if (!code.empty())
      b.currency = normalise_currency(code);
    else if (!sym.empty())
      b.currency = normalise_currency(sym);
  } catch (const Error&) {
    bad_budget(what, text, "unknown currency");
  }
  return b;
}

}  // namespace

Budget parse_budget(std::string_view text) { return parse_money(text, "budget", false); }

Budget parse_amount(std::string_view text, std::string_view flag) {
  return parse_money(text, flag, true);
}

std::string currency_for_locale(std::string_view locale) {
  static const std::map<std::string, std::string> regions{
      {"CN", "CNY"}, {"US", "USD"}, {"GB", "GBP"}, {"JP", "JPY"}, {"KR", "KRW"}, {"IN", "INR"},
      {"CA", "CAD"}, {"AU", "AUD"}, {"CH", "CHF"}, {"SG", "SGD"}, {"HK", "HKD"}, {"TW", "TWD"},
      {"DE", "EUR"}, {"FR", "EUR"}, {"IT", "EUR"}, {"ES", "EUR"}, {"NL", "EUR"}, {"AT", "EUR"},
      {"BE", "EUR"}, {"FI", "EUR"}, {"IE", "EUR"}, {"PT", "EUR"}, {"GR", "EUR"}, {"LU", "EUR"}};
  // language_REGION[.codeset][@modifier]: two or three lower-case letters, '_', two capitals.
  if (locale.size() > kMaxLocaleText) return "";
  const std::size_t us = locale.find('_');
  if (us < 2 || us > 3 || locale.size() < us + 3) return "";
  auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  auto capital = [](char c) { return c >= 'A' && c <= 'Z'; };
  if (!std::all_of(locale.begin(), locale.begin() + static_cast<std::ptrdiff_t>(us), lower))
    return "";
  const std::string_view region = locale.substr(us + 1, 2);
  if (!capital(region[0]) || !capital(region[1])) return "";
  if (locale.size() > us + 3 && locale[us + 3] != '.' && locale[us + 3] != '@') return "";
  auto it = regions.find(std::string(region));
  return it == regions.end() ? "" : it->second;
}

std::string default_currency(const std::string& gpusel_currency, const std::string& lc_all,
                             const std::string& lc_monetary, const std::string& lang) {
  if (!gpusel_currency.empty()) return normalise_currency(gpusel_currency);
  // POSIX precedence: LC_ALL overrides LC_MONETARY, which overrides LANG.
  for (const auto* l : {&lc_all, &lc_monetary, &lang}) {
    if (l->empty()) continue;
    const std::string c = currency_for_locale(*l);
    if (!c.empty()) return c;
    break;  // the deciding variable names no known region: fall back, don't look further
  }
  return "USD";
}

std::optional<ChargedPrice> charge(const Gpu& gpu, const PricePolicy& pol, const Rates& rates) {
  const Price* best = nullptr;
  // A price dated after today is no offer yet (a typo, or 9999-12-31): never charged, and
  // never the "newest" that would win its kind. ISO dates order as text.
  // The system's date read once: charge() runs for every configuration ranked.
  static const std::string system_today = today_iso();
  const std::string& today = pol.today.empty() ? system_today : pol.today;
  auto rank = [&](const Price& p) {
    return std::make_tuple(recency_class(p, pol), p.currency != pol.currency ? 1 : 0);
  };
  for (const auto& p : gpu.prices) {
    if (pol.new_only && p.kind == "used") continue;
    if (p.as_of > today) continue;
    if (!rates.per_base.count(p.currency)) continue;
    if (!best || rank(p) < rank(*best) || (rank(p) == rank(*best) && p.as_of > best->as_of))
      best = &p;
  }
  if (!best) return std::nullopt;
  return ChargedPrice{convert(best->amount, best->currency, pol.currency, rates), pol.currency,
                      best, best->currency != pol.currency, best->kind == "used"};
}

}  // namespace gpusel
