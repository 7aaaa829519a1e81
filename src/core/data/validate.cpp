#include "gpusel/data/validate.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <tuple>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "records_internal.hpp"
#include "validate_internal.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

std::chrono::sys_days to_days(const std::string& d) {
  if (!is_date(d))
    throw usage_error("'" + quote_input(d) + "' is not a date (expected YYYY-MM-DD)");
  using namespace std::chrono;
  const int y = std::stoi(d.substr(0, 4));
  const auto m = static_cast<unsigned>(std::stoi(d.substr(5, 2)));
  const auto dd = static_cast<unsigned>(std::stoi(d.substr(8, 2)));
  return sys_days{year_month_day{year{y}, month{m}, day{dd}}};
}

}  // namespace

namespace detail {

std::string effective_as_of(const json& doc, const ValidateOptions& o) {
  if (o.as_of != "reviewed") return o.as_of;
  if (auto r = doc.find("reviewed");
      r != doc.end() && r->is_string() && is_date(r->get_ref<const std::string&>()))
    return r->get<std::string>();
  throw usage_error("--as-of reviewed: the document has no valid \"reviewed\" date");
}

void throw_first_error(const ValidationReport& report, const std::string& file) {
  const auto& ds = report.diagnostics;
  auto first = std::find_if(ds.begin(), ds.end(),
                            [](const Diagnostic& d) { return d.severity == Severity::error; });
  if (first == ds.end()) return;
  const int more = report.count(Severity::error) - 1;
  std::string msg = file + ":" + std::to_string(first->pos.line) + ":" +
                    std::to_string(first->pos.column) + ": " +
                    (first->pointer.empty() ? "" : first->pointer + ": ") + first->message;
  if (more > 0)
    msg += " (and " + std::to_string(more) + " more error(s): gpusel catalog validate " +
           quote_input(file, 200) + " lists them)";
  throw data_error(msg);
}

}  // namespace detail

int ValidationReport::count(Severity s) const {
  int n = 0;
  for (const auto& d : diagnostics) n += d.severity == s;
  return n;
}

bool ValidationReport::passed(bool strict) const {
  return count(Severity::error) == 0 && (!strict || count(Severity::warning) == 0);
}

ValidationReport validate_document(std::string_view text, const std::string& file,
                                   const ValidateOptions& options) {
  // The loaders' own reading runs last, on records with no other finding: whatever a loader
  // would refuse, validate reports.
  detail::DocumentSink sink;
  Platforms platforms;  // networks for the platform records' lookups
  bool platforms_top = false;
  sink.top = [&](const json& top) {
    if (top.contains("offers")) {
      Cloud c;
      detail::parse_cloud_top(c, top, file, false);
    }
    if (top.contains("platforms")) {
      detail::parse_platforms_top(platforms, top, file);
      platforms_top = true;
    }
  };
  sink.record = [&](std::size_t, const json& rec, const std::string& at, detail::Span) {
    if (at.rfind("gpus[", 0) == 0) detail::parse_gpu_record(rec, at);
    if (at.rfind("offers[", 0) == 0) detail::parse_offer_record(rec, at);
    if (at.rfind("models[", 0) == 0) detail::parse_model_record(rec, at);
    // Without the document's networks (its top had an error) a lookup would only repeat it.
    if (at.rfind("platforms[", 0) == 0 && platforms_top)
      detail::parse_platform_record(platforms, rec, at);
  };
  // Records of a catalog or offers file read as a flat tree (document.cpp's fast path).
  sink.record_flat = [](std::size_t, const json_detail::FlatValue& rec, const std::string& at,
                        detail::Span) {
    if (at.rfind("gpus[", 0) == 0) detail::parse_gpu_record(rec, at);
    if (at.rfind("offers[", 0) == 0) detail::parse_offer_record(rec, at);
  };
  return detail::check_document(text, file, options, detail::PassOptions{}, &sink);
}

bool is_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  int parts[3] = {0, 0, 0};
  for (std::size_t i = 0, part = 0; i < s.size(); ++i) {
    if (i == 4 || i == 7) {
      ++part;
    } else if (s[i] >= '0' && s[i] <= '9') {
      parts[part] = parts[part] * 10 + (s[i] - '0');
    } else {
      return false;
    }
  }
  using namespace std::chrono;
  return year_month_day{year{parts[0]}, month{unsigned(parts[1])}, day{unsigned(parts[2])}}.ok();
}

long days_between(const std::string& from, const std::string& to) {
  return static_cast<long>((to_days(to) - to_days(from)).count());
}

}  // namespace gpusel
