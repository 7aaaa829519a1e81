// Bare parameter counts ("7B", "8x7B", "30B-A3B") and the typical architecture that
// stands in for a model given only by its size.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/memory/param_count.hpp"

namespace gpusel {
namespace {

constexpr double kMinParams = 1e5;   // below this a count is a typo ("7" for "7B")
constexpr double kMaxParams = 1e14;  // 100T: far beyond any published model

[[noreturn]] void reject(std::string_view text, const std::string& why) {
  throw usage_error("invalid parameter count '" + quote_input(text) + "'" +
                    (why.empty() ? "" : " (" + why + ")") +
                    "; accepted forms: 7B, 7b, 1.5B, 350M, 0.5T, 7e9, 7000000000, "
                    "8x7B (experts x size), 30B-A3B (total-A-active)");
}

double suffix_scale(char c) {
  switch (c) {
    case 'k':
    case 'K':
      return 1e3;
    case 'm':
    case 'M':
      return 1e6;
    case 'b':
    case 'B':
    case 'g':
    case 'G':
      return 1e9;
    case 't':
    case 'T':
      return 1e12;
    default:
      return 0;
  }
}

// One count: a plain decimal number (no sign, no hex, no inf/nan) with an optional
// K/M/B/T suffix. Returns the count in parameters.
double parse_one(std::string_view part, std::string_view whole) {
  if (part.empty()) reject(whole, "empty");
  double scale = 1;
  if (double s = suffix_scale(part.back()); s > 0) {
    scale = s;
    part.remove_suffix(1);
  }
  if (part.empty() ||
      !(std::isdigit(static_cast<unsigned char>(part.front())) || part.front() == '.'))
    reject(whole, "a count starts with a digit");
  double v = 0;
  auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
  if (ec == std::errc::result_out_of_range) reject(whole, "out of range");
  if (ec != std::errc() || end != part.data() + part.size()) reject(whole, "");
  v *= scale;
  if (!std::isfinite(v) || v > kMaxParams) reject(whole, "out of range");
  if (v <= 0) reject(whole, "must be positive");
  if (v < kMinParams) reject(whole, "too small: did you mean " + quote_input(part) + "B?");
  return v;
}

// Share of a dense Llama-style model's parameters in its MLPs: what an "N x size"
// mixture replicates (Mixtral 8x7B: 46.7B total, 12.9B active from Mistral 7B).
double mlp_params(double size) {
  ModelArch m = typical_arch({size, size});
  return double(m.layers) * 3.0 * m.hidden * double(m.intermediate);
}

ParamCount parse_experts(std::string_view s, std::size_t x, std::string_view whole) {
  std::string_view n = s.substr(0, x);
  int experts = 0;
  auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), experts);
  if (ec != std::errc() || end != n.data() + n.size() || experts < 2 || experts > 1024)
    reject(whole, "expert count must be an integer from 2 to 1024");
  double size = parse_one(s.substr(x + 1), whole);
  double mlp = mlp_params(size);
  // Top-2 routing, as in Mixtral and the "NxM" models named after it.
  return {size + (experts - 1) * mlp, size + std::min(1, experts - 1) * mlp};
}

}  // namespace

ParamCount parse_param_count(std::string_view text) {
  std::string_view s = trim(text);
  if (s.empty()) reject(text, "empty");
  if (auto x = s.find_first_of("xX"); x != std::string_view::npos) return parse_experts(s, x, text);
  if (auto a = s.find("-A"); a != std::string_view::npos) {
    double total = parse_one(s.substr(0, a), text);
    double active = parse_one(s.substr(a + 2), text);
    if (active > total) reject(text, "active exceeds total");
    return {total, active};
  }
  if (auto a = s.find("-a"); a != std::string_view::npos)
    return parse_param_count(std::string(s.substr(0, a)) + "-A" + std::string(s.substr(a + 2)));
  double v = parse_one(s, text);
  return {v, v};
}

}  // namespace gpusel

namespace gpusel {
namespace {

// The Llama 3 family's proportions (Llama 3.1 8B/70B, 3.2 1B/3B; ESTIMATOR.md table):
// head_dim 128, 8 KV heads, MLP width 3.5 x hidden, vocabulary 128256, hidden about
// 128 x layers, embeddings tied below 4B parameters.
constexpr long kTypicalVocab = 128256;
constexpr int kTypicalKvHeads = 8;
constexpr int kTypicalHeadDim = 128;
constexpr double kTypicalMlpRatio = 3.5;
constexpr double kTiedBelow = 4e9;

double layer_params(double h) {
  const double kv = kTypicalKvHeads * kTypicalHeadDim;
  return 2 * h * h + 2 * h * kv + 3 * h * kTypicalMlpRatio * h + 2 * h;
}

ModelArch shaped(int hidden, int layers, bool tied) {
  ModelArch m;
  m.hidden = hidden;
  m.layers = layers;
  m.head_dim = kTypicalHeadDim;
  m.heads = std::max(1, hidden / kTypicalHeadDim);
  m.kv_heads = std::min(kTypicalKvHeads, m.heads);  // typical_arch keeps heads divisible
  m.intermediate = int(std::lround(kTypicalMlpRatio * hidden / 256.0) * 256);
  m.vocab = kTypicalVocab;
  m.tied_embeddings = tied;
  m.max_context = 131072;
  return m;
}

std::string short_count(double p) {
  char buf[32];
  if (p >= 1e9)
    std::snprintf(buf, sizeof buf, "%.3gB", p / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.3gM", p / 1e6);
  return buf;
}

}  // namespace

ModelArch typical_arch(const ParamCount& count) {
  const double p = count.active > 0 ? count.active : count.total;
  const bool tied = p < kTiedBelow;
  int best_h = 256, best_l = 1;
  double best_score = 1e300;
  for (int h = 256; h <= 32768; h += 128) {
    // Query heads in whole groups of the 8 KV heads (grouped-query attention), as the
    // Llama 3 shapes have; small models with under 8 heads keep one KV head per head.
    const int heads = h / kTypicalHeadDim;
    if (heads >= kTypicalKvHeads && heads % kTypicalKvHeads != 0) continue;
    const double emb = double(kTypicalVocab) * h * (tied ? 1 : 2);
    const double l = std::max(1.0, std::round((p - emb) / layer_params(h)));
    const double score = std::abs(std::log(l * 128.0 / h));  // distance from hidden = 128 L
    if (score < best_score) best_score = score, best_h = h, best_l = int(l);
  }
  ModelArch m = shaped(best_h, best_l, tied);
  m.params = count.total;
  if (count.active < count.total) m.active_params = count.active;
  m.id = "params-" + short_count(count.total);
  m.name = "typical " + short_count(count.total) + " decoder";
  m.family = "typical";
  m.notes = "Llama-3-style shape for " + short_count(p) +
            " parameters: " + std::to_string(m.layers) + " layers, hidden " +
            std::to_string(m.hidden) + ", " + std::to_string(m.heads) + " heads, " +
            std::to_string(m.kv_heads) + " KV heads x 128, MLP " + std::to_string(m.intermediate) +
            " (SwiGLU), vocab " + std::to_string(m.vocab) + (tied ? ", tied embeddings" : "");
  if (m.active_params)
    m.notes += "; mixture of experts: a dense shape of the active size, weights of the total";
  return m;
}

}  // namespace gpusel
