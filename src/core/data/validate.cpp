#include "gpusel/data/validate.hpp"

#include <algorithm>
#include <chrono>
#include <regex>
#include <set>
#include <tuple>

#include "gpusel/json/embedded.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/json/json_schema.hpp"
#include "validate_internal.hpp"

namespace gpusel {
namespace {

using nlohmann::json;

struct Kind {
  const char* list;    // top-level array that identifies the document
  const char* schema;  // embedded schema that describes it
};
constexpr Kind kKinds[] = {{"gpus", "data/schema/gpus.schema.json"},
                           {"offers", "data/schema/cloud.schema.json"},
                           {"models", "data/schema/models.schema.json"},
                           {"platforms", "data/schema/platforms.schema.json"}};

const Kind* kind_of(const json& doc) {
  if (!doc.is_object()) return nullptr;
  for (const auto& k : kKinds)
    if (doc.contains(k.list)) return &k;
  return nullptr;
}

void check_against_schema(const json& doc, const Kind& kind, detail::Findings& f) {
  static std::map<std::string, json> schemas;  // parsed once per process
  auto it = schemas.find(kind.schema);
  if (it == schemas.end())
    it = schemas.emplace(kind.schema, json::parse(embedded_text(kind.schema))).first;
  for (const auto& issue : check_schema(it->second, doc)) {
    if (issue.unknown_field)
      f.warning(issue.pointer, "unknown-field", issue.message);
    else
      f.error(issue.pointer, "schema", issue.message);
  }
}

void check_semantics(const json& doc, const Kind& kind, const ValidateOptions& o,
                     detail::Findings& f) {
  const std::string as_of = detail::effective_as_of(doc, o);
  const std::string list = kind.list;
  if (doc[list].is_array()) detail::check_unique_ids(doc[list], "/" + list, f);
  if (list == "gpus") detail::check_gpu_semantics(doc, as_of, f);
  if (list == "offers") detail::check_cloud_semantics(doc, as_of, o.gpus, f);
  if (list == "platforms") detail::check_platform_semantics(doc, as_of, f);
}

std::chrono::sys_days to_days(const std::string& d) {
  if (!is_date(d)) throw usage_error("'" + d + "' is not a date (expected YYYY-MM-DD)");
  using namespace std::chrono;
  year_month_day ymd{year{std::stoi(d.substr(0, 4))}, month{unsigned(std::stoi(d.substr(5, 2)))},
                     day{unsigned(std::stoi(d.substr(8, 2)))}};
  return sys_days{ymd};
}

}  // namespace

namespace detail {

void Findings::add(Severity s, const std::string& pointer, const std::string& check,
                   const std::string& message) {
  report_.diagnostics.push_back({s, file_, src_.at(pointer), pointer, check, message});
}

std::string effective_as_of(const json& doc, const ValidateOptions& o) {
  if (o.as_of != "reviewed") return o.as_of;
  if (doc.contains("reviewed") && doc["reviewed"].is_string() &&
      is_date(doc["reviewed"].get<std::string>()))
    return doc["reviewed"].get<std::string>();
  throw usage_error("--as-of reviewed: the document has no valid \"reviewed\" date");
}

void check_unique_ids(const json& list, const std::string& list_ptr, Findings& f) {
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object() || !list[i].contains("id") || !list[i]["id"].is_string()) continue;
    const auto id = list[i]["id"].get<std::string>();
    auto [it, fresh] = seen.emplace(id, i);
    if (!fresh)
      f.error(list_ptr + "/" + std::to_string(i) + "/id", "unique-ids",
              "duplicate id '" + id + "' (first at index " + std::to_string(it->second) + ")");
  }
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
  ValidationReport report;
  LocatedJson src;
  try {
    src = parse_located(text, file);
  } catch (const Error& e) {
    // parse_located says "file:line:col: reason"; keep the reason, locate it ourselves.
    std::string msg = e.what();
    std::smatch m;
    SourcePos pos;
    static const std::regex loc(R"(:(\d+):(\d+): (.*)$)");
    if (std::regex_search(msg, m, loc)) pos = {std::stoi(m[1]), std::stoi(m[2])}, msg = m[3];
    report.diagnostics.push_back({Severity::error, file, pos, "", "syntax", msg});
    return report;
  }
  detail::Findings f(src, file, report);
  const Kind* kind = kind_of(src.doc);
  if (!kind) {
    f.error("", "schema",
            "not a gpusel data file (expected a \"gpus\", \"offers\", \"models\" or "
            "\"platforms\" list at the top level)");
    return report;
  }
  check_against_schema(src.doc, *kind, f);
  check_semantics(src.doc, *kind, options, f);
  // Source order, so a reader can walk the file top to bottom.
  std::stable_sort(report.diagnostics.begin(), report.diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     return std::tie(a.pos.line, a.pos.column) < std::tie(b.pos.line, b.pos.column);
                   });
  return report;
}

bool is_date(std::string_view s) {
  static const std::regex re(R"(\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]))");
  if (!std::regex_match(s.begin(), s.end(), re)) return false;
  using namespace std::chrono;
  std::string d(s);
  year_month_day ymd{year{std::stoi(d.substr(0, 4))}, month{unsigned(std::stoi(d.substr(5, 2)))},
                     day{unsigned(std::stoi(d.substr(8, 2)))}};
  return ymd.ok();
}

long days_between(const std::string& from, const std::string& to) {
  return static_cast<long>((to_days(to) - to_days(from)).count());
}

}  // namespace gpusel
