#pragma once
// Shape families for a bare parameter count (data/families.json, schema in
// data/schema/families.schema.json): the proportions each family's published models share.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpusel {

struct ShapeFamily {
  std::string id, name;
  long vocab = 0;
  double tied_below = 0;  // counts below tie the LM head to the embedding
  std::string kv_rule;    // "fixed" (kv_fixed), "heads" (multi-head) or "half"
  int kv_fixed = 0;
  std::vector<std::pair<double, int>> kv_by_size;  // (from params, KV heads), increasing
  int head_dim = 128;
  std::string mlp = "swiglu", norm = "rmsnorm";
  double mlp_ratio = 3.5;
  bool qkv_bias = false;
  double hidden_per_layer = 128;
  int max_context = 2048;
  std::string source, as_of;
};

// How a mixture written NxM or T-A-A is shaped: its default family and experts per token.
struct MoeForm {
  std::string family;
  int top_k = 2;
  std::string source;
};
struct MoeForms {
  MoeForm experts_x_size, total_a_active;
};

// The embedded data/families.json, parsed once; Error(data) on a bad record.
const std::vector<ShapeFamily>& shipped_families();
const MoeForms& moe_forms();

// By id; Error(usage) with "did you mean" and the list otherwise.
const ShapeFamily& shape_family(std::string_view id);

std::vector<std::string> family_names();

}  // namespace gpusel
