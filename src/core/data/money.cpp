#include "gpusel/data/money.hpp"

#include <algorithm>
#include <cmath>
#include <regex>

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

[[noreturn]] void bad_budget(std::string_view text, const std::string& why) {
  throw usage_error("invalid budget '" + std::string(text) + "': " + why +
                    " (forms: 15000, 15000CNY, 15k EUR, $15000, ¥15000)");
}

int recency_class(const Price& p, const PricePolicy& pol) {
  if (p.kind == "street" || p.kind == "estimate") return 0;
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
  std::string c = upper(code);
  if (auto it = symbols().find(std::string(code)); it != symbols().end()) return it->second;
  if (auto it = symbols().find(c); it != symbols().end()) return it->second;
  static const std::regex iso("[A-Z]{3}");
  if (!std::regex_match(c, iso))
    throw usage_error("unknown currency '" + std::string(code) +
                      "' (use an ISO code: USD, CNY, EUR)");
  return c;
}

Budget parse_budget(std::string_view text) {
  static const std::regex re(R"(^\s*(\D*?)\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmM]?)\s*([A-Za-z]*)\s*$)");
  const std::string s(text);
  std::smatch m;
  if (text.find('-') != std::string_view::npos) bad_budget(text, "it must be positive");
  if (!std::regex_match(s, m, re)) bad_budget(text, "not an amount");
  const double scale = suffix_scale(m[3].str());
  const double amount = std::stod(m[2].str()) * scale;
  if (!(amount > 0) || !std::isfinite(amount)) bad_budget(text, "it must be positive");
  const std::string sym = m[1].str(), code = m[4].str();
  if (!sym.empty() && !code.empty() && symbols().count(sym) && upper(code) != symbols().at(sym))
    bad_budget(text, "two different currencies");
  Budget b{amount, ""};
  try {
    if (!code.empty())
      b.currency = normalise_currency(code);
    else if (!sym.empty())
      b.currency = normalise_currency(sym);
  } catch (const Error&) {
    bad_budget(text, "unknown currency");
  }
  return b;
}

std::string currency_for_locale(std::string_view locale) {
  static const std::map<std::string, std::string> regions{
      {"CN", "CNY"}, {"US", "USD"}, {"GB", "GBP"}, {"JP", "JPY"}, {"KR", "KRW"}, {"IN", "INR"},
      {"CA", "CAD"}, {"AU", "AUD"}, {"CH", "CHF"}, {"SG", "SGD"}, {"HK", "HKD"}, {"TW", "TWD"},
      {"DE", "EUR"}, {"FR", "EUR"}, {"IT", "EUR"}, {"ES", "EUR"}, {"NL", "EUR"}, {"AT", "EUR"},
      {"BE", "EUR"}, {"FI", "EUR"}, {"IE", "EUR"}, {"PT", "EUR"}, {"GR", "EUR"}, {"LU", "EUR"}};
  static const std::regex re(R"(^[a-z]{2,3}_([A-Z]{2})([.@].*)?$)");
  const std::string s(locale);
  std::smatch m;
  if (!std::regex_match(s, m, re)) return "";
  auto it = regions.find(m[1].str());
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
  auto rank = [&](const Price& p) {
    return std::make_tuple(recency_class(p, pol), p.currency != pol.currency ? 1 : 0);
  };
  for (const auto& p : gpu.prices) {
    if (pol.new_only && p.kind == "used") continue;
    if (!rates.per_base.count(p.currency)) continue;
    if (!best || rank(p) < rank(*best) || (rank(p) == rank(*best) && p.as_of > best->as_of))
      best = &p;
  }
  if (!best) return std::nullopt;
  return ChargedPrice{convert(best->amount, best->currency, pol.currency, rates), pol.currency,
                      best, best->currency != pol.currency, best->kind == "used"};
}

}  // namespace gpusel
