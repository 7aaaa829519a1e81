#pragma once
// A bare parameter count ("7B", "8x7B", "30B-A3B") and the typical architecture that stands
// in for a model the user did not name.
#include <string>
#include <string_view>

#include "gpusel/data/models.hpp"

namespace gpusel {

struct ParamCount {
  double total = 0;
  double active = 0;       // equals total for dense models
  int experts = 0;         // "NxM": N experts of an M-sized model (0 otherwise)
  double expert_size = 0;  // "NxM": M
};

// "7B" "7b" "1.5B" "350M" "0.5T" "7e9" "7000000000" "8x7B" "30B-A3B". Anything else
// (including zero, negative, non-finite and overflowing values) throws Error(usage)
// quoting the input and listing the accepted forms.
ParamCount parse_param_count(std::string_view text);

// What shapes a bare count: a family of data/families.json (default llama3 for dense counts;
// the MoE forms' own defaults, data/families.json moe_forms) and a vocabulary (0: the
// family's).
struct ShapeHints {
  std::string family;
  long vocab = 0;
};

// A decoder-only LLM of that family whose size is the count. The shape grows with the count
// without ever shrinking (layers, width, heads, KV heads and MLP width never decrease), and
// what it leaves over is counted as linear-layer weights, so every memory component is
// non-decreasing in the count. MoE forms get a per-expert shape and every expert is a LoRA
// target. Error(usage) below the family's smallest model (one layer beside its embedding).
ModelArch typical_arch(const ParamCount& count, const ShapeHints& hints = {});

}  // namespace gpusel
