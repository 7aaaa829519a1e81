// Semantic checks of data/platforms.json beyond its schema: figures within their own range,
// networks that exist, PSU steps in order, and prices that have not gone stale.
#include <string>
#include <unordered_map>

#include "gpusel/base/text.hpp"

#include "validate_internal.hpp"

namespace gpusel::detail {
namespace {

using nlohmann::json;

// Host and network prices move more slowly than card prices: two years before a warning.
constexpr long kStaleDays = 730;

void check_figure(const json& fig, const std::string& at, const std::string& as_of, Findings& f) {
  if (!fig.is_object() || !fig.contains("value") || !fig["value"].is_number() ||
      !fig.contains("range") || !fig["range"].is_array() || fig["range"].size() != 2)
    return;  // the schema reports it
  const double v = fig["value"].get<double>();
  const json& r = fig["range"];
  if (r[0].is_number() && r[1].is_number() && !(r[0].get<double>() <= v && v <= r[1].get<double>()))
    f.error(at + "/value", "range", "value lies outside its own range");
  if (fig.contains("as_of") && fig["as_of"].is_string() &&
      is_date(fig["as_of"].get<std::string>())) {
    const std::string date = fig["as_of"].get<std::string>();
    const long age = days_between(date, as_of);
    // A warning, as for card and cloud prices: the loaders judge at today's date, validate at
    // --as-of, and the two must refuse the same files.
    if (age < 0) f.warning(at + "/as_of", "price-date", "dated after the as-of date " + as_of);
    if (age > kStaleDays)
      f.warning(at + "/as_of", "price-age",
                "price from " + date + " is over two years old: refresh it");
  }
}

}  // namespace

// Networks sit in the outline (only the "platforms" list is read record by record); whether a
// platform names a network that exists is the loader's check, which validate runs too.
void check_platform_top(const json& outline, const ValidateOptions& o, Findings& f) {
  if (outline.contains("host_memory") && outline["host_memory"].is_object())
    for (const char* fig : {"price_per_gb", "os_reserve_gb"})
      check_figure(outline["host_memory"].value(fig, json()), std::string("/host_memory/") + fig,
                   o.as_of, f);
  if (!outline.contains("networks") || !outline["networks"].is_array()) return;
  std::unordered_map<std::string, std::size_t> ids;
  for (std::size_t i = 0; i < outline["networks"].size(); ++i) {
    const json& n = outline["networks"][i];
    if (!n.is_object() || !n.contains("id") || !n["id"].is_string()) continue;
    auto [it, fresh] = ids.emplace(n["id"].get<std::string>(), i);
    if (!fresh)
      f.error("/networks/" + std::to_string(i) + "/id", "unique-ids",
              "duplicate id '" + quote_input(it->first) + "' (first at index " +
                  std::to_string(it->second) + ")");
  }
  for (std::size_t i = 0; i < outline["networks"].size(); ++i) {
    const json& n = outline["networks"][i];
    if (n.is_object())
      check_figure(n.value("cost_per_gpu", json()),
                   "/networks/" + std::to_string(i) + "/cost_per_gpu", o.as_of, f);
  }
}

void check_platform_record(const json& rec, const std::string& ptr, const ValidateOptions& o,
                           Findings& f) {
  if (rec.is_object()) check_figure(rec.value("cost", json()), ptr + "/cost", o.as_of, f);
}

}  // namespace gpusel::detail
