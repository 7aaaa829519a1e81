// A model record's last checks, apart from the reading of its fields: whether its published
// count agrees with its own shape, and the weights its publisher ships (shipped_weights).
#include <fmt/format.h>

#include "gpusel/base/error.hpp"
#include "gpusel/data/models.hpp"
#include "json/json_fields.hpp"
#include "records_internal.hpp"

namespace gpusel {

// A published count smaller than what its own shape's embedding and LM head hold, or an active
// count above the total, is a record at odds with itself: every estimate from it would be.
void detail::check_count(const ModelArch& m, const std::string& at) {
  ModelArch shape = m;
  shape.params = 0, shape.active_params.reset();
  const ArchParams a = arch_params(shape);
  if (m.params < a.embedding + a.lm_head)
    throw data_error(at + ": params " + fmt::format("{:.3g}", m.params) +
                     " is smaller than the embedding and LM head of its shape (vocab x hidden: " +
                     fmt::format("{:.3g}", a.embedding + a.lm_head) + ")");
  if (m.active_params && !(*m.active_params > 0 && *m.active_params <= m.params))
    throw data_error(at + ": active_params must be positive and at most params");
}

std::optional<ShippedWeights> detail::parse_shipped(const nlohmann::json& rec,
                                                    const std::string& at) {
  const auto j = detail::present<nlohmann::json>(rec, "shipped_weights", at);
  if (!j || j->is_null()) return std::nullopt;
  const std::string here = at + ".shipped_weights";
  ShippedWeights w;
  w.precision = detail::required<std::string>(*j, "precision", here);
  if (w.precision != "fp8" && w.precision != "int8" && w.precision != "int4")
    throw data_error(here + ".precision: expected fp8, int8 or int4");
  if (const auto bits = detail::present<double>(*j, "weight_bits", here)) {
    if (!(*bits >= 1 && *bits <= 8))
      throw data_error(here + ".weight_bits must be between 1 and 8");
    w.weight_bits = *bits;
  }
  if (const auto scope = detail::present<std::string>(*j, "scope", here)) {
    if (*scope != "linear" && *scope != "experts")
      throw data_error(here + ".scope: expected linear or experts");
    w.experts_only = *scope == "experts";  // gpt-oss: MXFP4 experts, the rest bf16
  }
  if (const auto bits = detail::present<double>(*j, "gguf_other_bits", here)) {
    if (!(*bits >= 1 && *bits <= 16) || !w.experts_only)
      throw data_error(here + ".gguf_other_bits must be between 1 and 16, with scope experts");
    w.gguf_other_bits = *bits;
    w.gguf_source = detail::required<std::string>(*j, "gguf_source", here);
  }
  w.source = detail::required<std::string>(*j, "source", here);
  w.as_of = detail::required<std::string>(*j, "as_of", here);
  return w;
}

}  // namespace gpusel
