#pragma once
// A bare parameter count ("7B", "8x7B", "30B-A3B") and the typical architecture that stands
// in for a model the user did not name.
#include <string_view>

#include "gpusel/data/models.hpp"

namespace gpusel {

struct ParamCount {
  double total = 0;
  double active = 0;  // equals total for dense models
};

// "7B" "7b" "1.5B" "350M" "0.5T" "7e9" "7000000000" "8x7B" "30B-A3B". Anything else
// (including zero, negative, non-finite and overflowing values) throws Error(usage)
// quoting the input and listing the accepted forms.
ParamCount parse_param_count(std::string_view text);

// A Llama-style dense (or MoE, when active < total) architecture whose parameter count
// matches `count`: widths from the Llama 2/3 family's ratios, documented in the
// returned notes. Used for a bare --params; the estimate's band is wider for it.
ModelArch typical_arch(const ParamCount& count);

}  // namespace gpusel
