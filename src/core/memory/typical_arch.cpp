// The typical architecture standing in for a bare parameter count: a shape of the chosen
// family (data/families.json) that grows with the count and never shrinks.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpusel/base/error.hpp"
#include "gpusel/data/families.hpp"
#include "gpusel/memory/param_count.hpp"

namespace gpusel {
namespace {

// The shape at size x: continuous (for solving) or floored (the model used). Every field
// is non-decreasing in x, so the floored shape at the solved x never exceeds the count.
struct Shape {
  double layers, hidden, heads, kv_heads, intermediate;
};

double kv_for(const ShapeFamily& f, double heads, double count) {
  double kv = f.kv_rule == "heads" ? heads : f.kv_rule == "half" ? heads / 2 : f.kv_fixed;
  for (const auto& [from, k] : f.kv_by_size)
    if (count >= from) kv = k;
  return std::max(std::min(kv, heads), std::min(1.0, heads));
}

Shape shape_at(const ShapeFamily& f, double x, double count, bool floored) {
  const double hd = f.head_dim;
  Shape s;
  s.layers = floored ? std::max(1.0, std::floor(x)) : x;
  s.hidden = floored ? hd * std::max(1.0, std::floor(f.hidden_per_layer * x / hd))
                     : f.hidden_per_layer * x;
  s.heads = s.hidden / hd;
  s.kv_heads = kv_for(f, s.heads, count);
  if (floored) s.kv_heads = std::floor(s.kv_heads);
  const double width = f.mlp_ratio * s.hidden;
  const double grain = width >= 256 ? 256 : 1;
  s.intermediate = floored ? std::max(1.0, grain * std::floor(width / grain)) : width;
  return s;
}

// Parameters of the blocks (attention, MLP, norms) and of the embeddings.
struct Sizes {
  double attention, mlp, norms, embedding;
};

Sizes sizes_of(const ShapeFamily& f, const Shape& s, long vocab, bool tied) {
  const double h = s.hidden, q = s.heads * f.head_dim, kv = s.kv_heads * f.head_dim;
  const bool layernorm = f.norm == "layernorm";
  Sizes z;
  z.attention =
      s.layers * (2 * h * q + 2 * h * kv + (f.qkv_bias ? q + 2 * kv : 0) + (layernorm ? h : 0));
  const double mlp_one = f.mlp == "gelu"
                             ? 2 * h * s.intermediate + (layernorm ? s.intermediate + h : 0)
                             : 3 * h * s.intermediate;
  z.mlp = s.layers * mlp_one;
  z.norms = s.layers * (layernorm ? 4 : 2) * h + h;
  z.embedding = double(vocab) * h * (tied ? 1 : 2);
  return z;
}

double total(const Sizes& z) { return z.attention + z.mlp + z.norms + z.embedding; }

// The size x whose continuous shape has exactly `count` parameters (bisection).
double solve(const ShapeFamily& f, double count, long vocab, bool tied, double x_min) {
  double lo = x_min, hi = x_min * 2;
  auto params = [&](double x) {
    return total(sizes_of(f, shape_at(f, x, count, false), vocab, tied));
  };
  while (params(hi) < count) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (params(mid) < count ? lo : hi) = mid;
  }
  return lo;
}

// "7B", "0.5B", "1.5T", "125M": three significant digits, never an exponent ("2e+03B").
std::string short_count(double p) {
  char buf[48];
  const double v = p >= 1e12 ? p / 1e12 : p >= 1e9 ? p / 1e9 : p / 1e6;
  const char* unit = p >= 1e12 ? "T" : p >= 1e9 ? "B" : "M";
  if (v >= 999.5)  // %.3g would round these to an exponent
    std::snprintf(buf, sizeof buf, "%.0f%s", v, unit);
  else
    std::snprintf(buf, sizeof buf, "%.3g%s", v, unit);
  return buf;
}

struct Dense {
  ModelArch m;
  Sizes z;  // of the floored shape
};

// A dense model of `count` parameters in family f.
Dense dense_shape(const ShapeFamily& f, double count, long vocab) {
  const bool tied = count < f.tied_below;
  const bool tied_always = f.tied_below >= 1e15;
  // Solved with untied embeddings unless the family always ties, so that the tie at
  // tied_below moves parameters into the remainder instead of shrinking the shape.
  const double x_min = std::max(1.0, f.head_dim / f.hidden_per_layer);
  const Sizes smallest = sizes_of(f, shape_at(f, x_min, count, false), vocab, tied_always);
  if (count < total(smallest))
    throw usage_error("a " + short_count(count) + " parameter count is below the smallest " + f.id +
                      " decoder: one layer of width " + std::to_string(f.head_dim) + " beside a " +
                      std::to_string(vocab) + "-token embedding has " +
                      short_count(total(smallest)) +
                      " parameters; give a larger count, a smaller --vocab or another --family");
  const double x = solve(f, count, vocab, tied_always, x_min);
  const Shape s = shape_at(f, x, count, true);
  Dense d;
  ModelArch& m = d.m;
  m.layers = int(s.layers), m.hidden = int(s.hidden), m.heads = int(s.heads);
  m.kv_heads = int(std::max(1.0, s.kv_heads)), m.head_dim = f.head_dim;
  m.intermediate = int(s.intermediate), m.vocab = vocab, m.tied_embeddings = tied;
  m.mlp = f.mlp == "geglu" ? "geglu" : f.mlp, m.norm = f.norm, m.qkv_bias = f.qkv_bias;
  m.max_context = f.max_context;
  m.params = count, m.remainder_linear = true;
  d.z = sizes_of(f, s, vocab, tied);
  return d;
}

void name_it(ModelArch& m, const ParamCount& c, const ShapeFamily& f) {
  m.id = "params-" + short_count(c.total);
  m.name = "assumed decoder-only LLM of " + short_count(c.total) + " (" + f.id + " shape)";
  m.family = "typical";
  m.notes = f.name + "-style shape (data/families.json " + f.id + ") for " +
            short_count(m.active_params.value_or(c.total)) + " parameters" +
            (m.moe ? " active" : "") + ": " + std::to_string(m.layers) + " layers, hidden " +
            std::to_string(m.hidden) + ", " + std::to_string(m.heads) + " heads, " +
            std::to_string(m.kv_heads) + " KV heads x " + std::to_string(m.head_dim) + ", MLP " +
            std::to_string(m.intermediate) + " (" + m.mlp + "), vocab " + std::to_string(m.vocab) +
            (m.tied_embeddings ? ", tied embeddings" : "") +
            "; parameters beyond the shape count as linear-layer weights";
  if (m.moe)
    m.notes += "; mixture of " + std::to_string(m.moe->experts) + " experts of width " +
               std::to_string(m.moe->expert_intermediate) + ", " + std::to_string(m.moe->active) +
               " per token, LoRA on every expert";
}

}  // namespace

ModelArch typical_arch(const ParamCount& c, const ShapeHints& hints) {
  const MoeForms& forms = moe_forms();
  const bool nxm = c.experts > 0;
  const bool taa = !nxm && c.active > 0 && c.active < c.total;
  const std::string fam = !hints.family.empty() ? hints.family
                          : nxm                 ? forms.experts_x_size.family
                          : taa                 ? forms.total_a_active.family
                                                : "llama3";
  const ShapeFamily& f = shape_family(fam);
  if (hints.vocab < 0) throw usage_error("--vocab must be positive");
  const long vocab = hints.vocab > 0 ? hints.vocab : f.vocab;
  const double dense_count = nxm ? c.expert_size : taa ? c.active : c.total;
  Dense d = dense_shape(f, dense_count, vocab);
  ModelArch& m = d.m;
  if (nxm || taa) {
    // One expert = the dense model's MLP, with its share of the remainder: what the dense
    // count holds beyond attention, norms and embeddings.
    const int k = nxm ? forms.experts_x_size.top_k : forms.total_a_active.top_k;
    const double mlp_all = dense_count - d.z.attention - d.z.norms - d.z.embedding;
    const double per_expert = nxm ? mlp_all : mlp_all / k;
    const int width = nxm ? m.intermediate : std::max(1, m.intermediate / k);
    int experts = c.experts;
    if (taa) experts = std::max(k + 1, k + int(std::lround((c.total - c.active) / per_expert)));
    m.moe = MoeSpec{experts, std::min(k, experts), 0, width, 0};
    const double active = nxm ? dense_count + (m.moe->active - 1) * per_expert : c.active;
    m.params = nxm ? dense_count + (experts - 1) * per_expert : c.total;
    m.active_params = active;
  }
  name_it(m, c, f);
  return m;
}

}  // namespace gpusel
