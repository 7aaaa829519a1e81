// Semantic checks of model presets: what the schema cannot say about one field against
// another. The estimator divides and multiplies these counts, so a shape that cannot exist
// would come out as a negative or absurd memory figure.
#include "gpusel/base/text.hpp"
#include "validate_internal.hpp"

namespace gpusel::detail {
namespace {

using nlohmann::json;

// The field as a whole number, or -1 when absent or not one (the schema reports that).
long long count(const json& rec, const char* key) {
  if (!rec.is_object()) return -1;
  auto it = rec.find(key);
  if (it == rec.end() || !it->is_number_integer()) return -1;
  return it->get<long long>();
}

double number(const json& rec, const char* key) {
  if (!rec.is_object()) return -1;
  auto it = rec.find(key);
  return it != rec.end() && it->is_number() ? it->get<double>() : -1;
}

void check_heads(const json& m, const std::string& p, Findings& f) {
  const long long heads = count(m, "heads"), kv = count(m, "kv_heads");
  if (heads > 0 && kv > heads)
    f.error(p + "/kv_heads", "model-shape",
            "kv_heads " + std::to_string(kv) + " exceeds heads " + std::to_string(heads));
  else if (heads > 0 && kv > 0 && heads % kv != 0)
    f.error(p + "/kv_heads", "model-shape",
            "heads " + std::to_string(heads) + " is not a multiple of kv_heads " +
                std::to_string(kv) + ": each KV head serves a whole group of query heads");
}

void check_moe(const json& m, const std::string& p, Findings& f) {
  auto moe = m.find("moe");
  if (moe == m.end() || !moe->is_object()) return;
  const long long experts = count(*moe, "experts"), active = count(*moe, "active");
  if (experts > 0 && active > experts)
    f.error(
        p + "/moe/active", "model-shape",
        "active experts " + std::to_string(active) + " exceed experts " + std::to_string(experts));
  const long long dense = count(*moe, "dense_layers"), layers = count(m, "layers");
  if (layers > 0 && dense > layers)
    f.error(p + "/moe/dense_layers", "model-shape",
            "dense_layers " + std::to_string(dense) + " exceeds layers " + std::to_string(layers));
}

void check_params(const json& m, const std::string& p, Findings& f) {
  const double total = number(m, "params"), active = number(m, "active_params");
  if (total > 0 && active > total)
    f.error(p + "/active_params", "model-shape", "active_params exceed params");
}

}  // namespace

void check_model_record(const json& m, const std::string& p, const ValidateOptions&, Findings& f) {
  if (!m.is_object()) return;  // the schema reports it
  check_heads(m, p, f);
  check_moe(m, p, f);
  check_params(m, p, f);
}

}  // namespace gpusel::detail
