// The fact vocabulary of the rules engine, and how fact values read in texts.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <unordered_map>

#include "gpusel/rank/rules.hpp"
#include "rules_internal.hpp"

namespace gpusel {
namespace {

using T = FactType;

// Kept in the order and wording of the table in rules.hpp; a unit test checks that the
// schema's fact enum (data/schema/rules.schema.json) lists the same names in the same order.
std::vector<FactInfo> make_vocabulary() {
  return {
      {"gpu.id", T::text, "catalog id, e.g. rtx-4090", {}},
      {"gpu.name", T::text, "marketing name", {}},
      {"gpu.vendor", T::text, "vendor", {"nvidia", "amd", "intel", "huawei", "apple"}},
      {"gpu.segment", T::text, "market segment", {"consumer", "workstation", "datacenter"}},
      {"gpu.form_factor",
       T::text,
       "form factor",
       {"pcie", "sxm", "oam", "mezzanine", "superchip", "soc", "mobile"}},
      {"gpu.vram_gb", T::number, "memory per card as marketed, GB", {}},
      {"gpu.memory_type", T::text, "memory type: GDDR6X, HBM3, LPDDR5X, ...", {}},
      {"gpu.ecc", T::boolean, "ECC on the card's memory", {}},
      {"gpu.unified_memory",
       T::boolean,
       "memory shared with the CPU (system-on-chip: Apple, DGX Spark, Ryzen AI Max, MI300A)",
       {}},
      {"gpu.tdp_w", T::number, "board power, W", {}},
      {"gpu.ecosystem",
       T::text,
       "software platform",
       {"cuda", "rocm", "oneapi", "synapseai", "cann", "metal"}},
      {"gpu.platform_target", T::text, "kernel target: sm_89, gfx942, ...", {}},
      {"gpu.launch_year", T::number, "year of launch", {}},
      {"gpu.bf16_tflops", T::number, "dense 16-bit tensor TFLOPS (BF16, else FP16)", {}},
      {"gpu.fp8", T::boolean, "the card has FP8 tensor math", {}},
      {"gpu.bf16", T::boolean, "the card has BF16 tensor math", {}},
      {"gpu.interconnect", T::text, "fast GPU link kind, none if none", {}},
      {"gpu.interconnect_gbs", T::number, "that link's bandwidth per GPU, GB/s", {}},
      {"gpu.interconnect_max_gpus", T::number, "largest group linked all-to-all", {}},
      {"gpu.used_price", T::boolean, "the price used is a used-market price", {}},
      {"config.count", T::number, "cards in the configuration", {}},
      {"config.linked", T::boolean, "all cards share the fast interconnect", {}},
      {"config.price", T::number, "price of the configuration, output currency", {}},
      {"config.headroom",
       T::number,
       "fraction of usable memory left per GPU (negative: does not fit)",
       {}},
      {"config.total_tdp_w", T::number, "board power of all cards, W", {}},
      {"config.one_card_fits", T::boolean, "the workload fits on a single card of this model", {}},
      {"config.rented", T::boolean, "a cloud instance rather than a purchase", {}},
      {"config.platform",
       T::text,
       "the platform a purchase needs (data/platforms.json id; none when rented)",
       {}},
      {"config.platform_priced",
       T::boolean,
       "the price includes that platform (false with --cards-only, rentals, unpriced cards)",
       {}},
      {"config.bound",
       T::text,
       "what sets the configuration's speed (the throughput model's verdict)",
       {"compute", "memory-bandwidth", "host", "communication"}},
      {"workload.timed",
       T::boolean,
       "the user gave an amount of work (--tokens), so speed has a deadline",
       {}},
      {"workload.mode", T::text, "workload mode", {"inference", "full", "freeze", "lora", "qlora"}},
      {"workload.training", T::boolean, "any mode but inference", {}},
      {"workload.params_b", T::number, "model parameters, billions", {}},
      {"workload.precision",
       T::text,
       "weight precision",
       {"fp32", "bf16", "fp16", "fp8", "int8", "int4"}},
      {"workload.optimizer",
       T::text,
       "optimizer",
       {"adamw", "adamw_8bit", "paged_adamw_8bit", "sgd", "adafactor"}},
      {"workload.needs_bitsandbytes", T::boolean, "qlora, or an 8-bit optimizer", {}},
      {"workload.flash_attn", T::boolean, "the workload assumes FlashAttention", {}},
      {"workload.long_run", T::boolean, "the job runs longer than 24 h (absent if unknown)", {}},
      {"workload.domestic", T::boolean, "domestic (China-made) hardware required", {}},
      {"workload.seq_len", T::number, "tokens per sample", {}},
      {"workload.batch", T::number, "micro-batch per GPU", {}},
      {"workload.engine",
       T::text,
       "the inference engine --engine names, resolved (absent when not given)",
       {}},
      {"config.engine_runs",
       T::boolean,
       "that engine has a backend for the card's ecosystem (absent without --engine)",
       {}},
      {"config.whole_boards",
       T::boolean,
       "the count is whole boards of the platform (sold_in): a purchase of 2 of an 8-GPU "
       "board is not; true when rented, with --cards-only or without such a platform",
       {}},
      {"config.board_sizes",
       T::text,
       "the GPU counts the platform's boards are sold in (\"4 or 8\"; absent without any)",
       {}},
      {"config.engine",
       T::text,
       "the engine that runs an inference: --engine, else the default for the count and batch",
       {}},
      {"workload.weights_format",
       T::text,
       "weights in a format engines need their own kernels for (absent otherwise)",
       {"mxfp4", "fp8"}},
      {"config.weights_kernel",
       T::boolean,
       "config.engine has kernels for workload.weights_format on the card (absent when "
       "nothing constrains it: no format, or a card outside the engine's table)",
       {}},
      {"config.engine_as",
       T::text,
       "the engine entry that runs on this card: config.engine, or what it runs as there "
       "(llama.cpp-nograph on Pascal, llama.cpp-hip-rdna3 on RDNA 3)",
       {}},
      {"workload.experts_in_ram",
       T::boolean,
       "llama.cpp keeps some MoE layers' routed experts in host RAM (--n-cpu-moe, --cpu-moe)",
       {}},
      {"config.host_ram_gb",
       T::number,
       "system RAM per host the offloaded parts need with the OS reserve, GB (0: nothing "
       "offloaded, or the platform's RAM is not counted)",
       {}},
      {"config.host_ram_short_gb",
       T::number,
       "GB of that RAM beyond the most the platform's board takes (0 when it fits, rented, or "
       "with --cards-only)",
       {}},
      {"config.own_host_ram_short_gb",
       T::number,
       "GB of that RAM beyond the --host-ram of the user's own host (0 when it fits, rented, or "
       "no --host-ram given)",
       {}},
      {"gpu.market",
       T::text,
       "where the card is sold: cn (mainland China only: export-compliant SKUs) or global",
       {"cn", "global"}},
      {"config.market",
       T::text,
       "where the buyer buys: cn or global (--market; default cn with prices in CNY or "
       "--domestic, else global)",
       {"cn", "global"}},
      {"gpu.tpp",
       T::number,
       "Total Processing Performance under US export rules (ECCN 3A090): dense TOPS x "
       "operand bits, the highest over precisions",
       {}},
      {"config.job_days",
       T::number,
       "days the job of --tokens takes on this configuration (unknown without --tokens)",
       {}},
      {"workload.reserve_given",
       T::boolean,
       "--reserve was given: the usable memory is the user's own figure (a Mac's raised wired "
       "limit), not the documented default",
       {}},
  };
}

std::string format_number(double x) {
  char buf[64];
  if (!std::isfinite(x)) return "?";
  // Whole numbers and thousands read best without decimals ("24", "1600"); others keep
  // four significant digits ("112.5", "0.075") and never switch to exponent notation.
  if (std::fabs(x) >= 1000 || std::fabs(x - std::round(x)) < 1e-9)
    std::snprintf(buf, sizeof buf, "%.0f", x);
  else
    std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

std::string format_percent(const FactValue& v) {
  if (!std::holds_alternative<double>(v)) return format_fact(v);
  const double pct = std::get<double>(v) * 100;
  char buf[64];
  std::snprintf(buf, sizeof buf, std::fabs(pct) >= 10 ? "%.0f%%" : "%.1f%%", pct);
  return buf;
}

}  // namespace

const std::vector<FactInfo>& fact_vocabulary() {
  static const std::vector<FactInfo> vocab = [] {
    auto v = make_vocabulary();
    if (v.size() != kFactCount) throw std::logic_error("rules: FactId and the vocabulary differ");
    return v;
  }();
  return vocab;
}

const FactInfo* find_fact(std::string_view name) {
  // Every evaluated configuration checks its facts: hashed, not searched.
  static const auto index = [] {
    std::unordered_map<std::string_view, const FactInfo*> m;
    for (const auto& f : fact_vocabulary()) m.emplace(f.name, &f);
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

std::size_t fact_index(const FactInfo& info) {
  return static_cast<std::size_t>(&info - fact_vocabulary().data());
}

namespace {

FactValue value_of(const FactTable::Slot& s) {
  switch (s.type) {
    case T::number:
      return s.number;
    case T::boolean:
      return s.flag;
    case T::text:
      break;
  }
  return std::string(s.text);
}

}  // namespace

Facts to_facts(const FactTable& t) {
  Facts f;
  for (std::size_t i = 0; i < kFactCount; ++i)
    if (t[i].known) f.emplace(fact_vocabulary()[i].name, value_of(t[i]));
  return f;
}

FactTable to_table(const Facts& facts) {
  check_facts(facts);
  FactTable t;
  for (const auto& [name, value] : facts) {
    const auto id = static_cast<FactId>(fact_index(*find_fact(name)));
    if (const double* d = std::get_if<double>(&value))
      t.number(id, *d);
    else if (const bool* b = std::get_if<bool>(&value))
      t.flag(id, *b);
    else
      t.text(id, std::get<std::string>(value));  // views the map's string
  }
  return t;
}

std::string to_string(FactType t) {
  switch (t) {
    case T::number:
      return "number";
    case T::boolean:
      return "boolean";
    case T::text:
      return "string";
  }
  return "?";
}

void check_facts(const Facts& facts) {
  for (const auto& [name, value] : facts) {
    const FactInfo* info = find_fact(name);
    if (!info) throw std::invalid_argument("rules: fact '" + name + "' is not in the vocabulary");
    if (info->type != rules_detail::type_of(value))
      throw std::invalid_argument("rules: fact '" + name + "' must be a " + to_string(info->type) +
                                  ", got a " + to_string(rules_detail::type_of(value)));
  }
}

std::string format_fact(const FactValue& v) {
  if (const double* d = std::get_if<double>(&v)) return format_number(*d);
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "yes" : "no";
  return std::get<std::string>(v);
}

std::string render_text(std::string_view text, const Facts& facts) {
  return rules_detail::expand_placeholders(text, [&](std::string_view name, bool pct) {
    auto it = facts.find(name);
    if (it == facts.end()) return std::string("?");
    return pct ? format_percent(it->second) : format_fact(it->second);
  });
}

std::string render_text(std::string_view text, const FactTable& facts) {
  return rules_detail::expand_placeholders(text, [&](std::string_view name, bool pct) {
    const FactInfo* info = find_fact(name);
    if (!info || !facts[fact_index(*info)].known) return std::string("?");
    const FactValue v = value_of(facts[fact_index(*info)]);
    return pct ? format_percent(v) : format_fact(v);
  });
}

namespace rules_detail {

std::string expand_placeholders(std::string_view text,
                                const std::function<std::string(std::string_view, bool)>& value) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool doubled = i + 1 < text.size() && text[i + 1] == c;
    if ((c == '{' || c == '}') && doubled) {
      out += c;
      ++i;
    } else if (c == '}') {
      throw std::invalid_argument("stray '}' (write '}}' for a literal brace)");
    } else if (c == '{') {
      const std::size_t close = text.find('}', i);
      if (close == std::string_view::npos)
        throw std::invalid_argument("unclosed '{' (write '{{' for a literal brace)");
      std::string_view inner = text.substr(i + 1, close - i - 1);
      const std::size_t colon = inner.find(':');
      const std::string_view suffix = colon == inner.npos ? "" : inner.substr(colon + 1);
      if (colon != inner.npos && suffix != "pct")
        throw std::invalid_argument("unknown format ':" + std::string(suffix) +
                                    "' in a placeholder (only :pct exists)");
      inner = inner.substr(0, colon);
      if (inner.empty()) throw std::invalid_argument("empty placeholder '{}'");
      out += value(inner, suffix == "pct");
      i = close;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace rules_detail
}  // namespace gpusel
