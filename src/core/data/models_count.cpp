// Whether a model record's published count agrees with its own shape (parse_model_record's
// last check), apart from the reading of its fields.
#include <fmt/format.h>

#include "gpusel/base/error.hpp"
#include "gpusel/data/models.hpp"
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

}  // namespace gpusel
