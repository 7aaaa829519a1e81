// The four kinds of data document (their lists, schemas and checks) and how a finding is kept
// (validate_internal.hpp).
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "validate_internal.hpp"

namespace gpusel::detail {
namespace {

void no_top(const nlohmann::json&, const ValidateOptions&, Findings&) {}

}  // namespace

const Schema& schema_for(const DocKind& kind) {
  static std::map<std::string, std::unique_ptr<Schema>> schemas;  // read once per process
  static std::mutex lock;  // as embedded_json's: safe from any thread (a Schema never moves)
  const std::lock_guard<std::mutex> hold(lock);
  auto& s = schemas[kind.schema];
  if (!s) s = std::make_unique<Schema>(embedded_json(kind.schema));
  return *s;
}

const std::array<const DocKind*, 4>& all_kinds() {
  static const std::array<const DocKind*, 4> kinds = {&gpus_kind(), &offers_kind(), &models_kind(),
                                                      &platforms_kind()};
  return kinds;
}

std::pair<const DocKind*, const json_detail::Outline::List*> pick_list(
    const json_detail::Outline& outline, const DocKind* expected, Findings& f) {
  const auto& keys = outline.keys;
  const DocKind* kind = nullptr;
  for (const DocKind* k : all_kinds()) {
    if (expected && expected != k) continue;
    if (std::find(keys.begin(), keys.end(), k->list) == keys.end()) continue;
    kind = k;
    for (const auto& l : outline.lists)
      if (l.key == k->list) return {kind, &l};
    break;  // the list is there but is not an array
  }
  if (expected && !kind)
    f.error("", "schema",
            std::string("not ") + expected->what + " (expected an object with a \"" +
                expected->list + "\" list)");
  else if (!kind)
    f.error("", "schema",
            "not a gpusel data file (expected a \"gpus\", \"offers\", \"models\" or "
            "\"platforms\" list at the top level)");
  else
    f.error("/" + std::string(kind->list), "schema",
            std::string("\"") + kind->list + "\" must be an array");
  return {kind, nullptr};
}

void Findings::add(Severity s, const std::string& pointer, const std::string& check,
                   const std::string& message) {
  if (s == Severity::error) ++errors_;
  if (s != Severity::note) ++serious_;
  if (errors_only_ && s != Severity::error) return;
  report_.diagnostics.push_back({s, file_, {}, pointer, check, message});
}

const DocKind& gpus_kind() {
  static const DocKind k{
      "gpus", "data/schema/gpus.schema.json",   "a GPU catalog",
      no_top, check_gpu_record<nlohmann::json>, check_gpu_record<json_detail::FlatValue>};
  return k;
}

const DocKind& offers_kind() {
  static const DocKind k{"offers",
                         "data/schema/cloud.schema.json",
                         "a cloud offers file",
                         check_cloud_top,
                         check_offer_record<nlohmann::json>,
                         check_offer_record<json_detail::FlatValue>};
  return k;
}

const DocKind& models_kind() {
  static const DocKind k{"models",           "data/schema/models.schema.json",
                         "a models file",    no_top,
                         check_model_record, nullptr};
  return k;
}

const DocKind& platforms_kind() {
  static const DocKind k{"platforms",           "data/schema/platforms.schema.json",
                         "a platforms file",    check_platform_top,
                         check_platform_record, nullptr};
  return k;
}

}  // namespace gpusel::detail
