#pragma once
// Declarative rules (data/rules.json): expert knowledge the ranker applies to each candidate
// configuration as warnings, notes, score adjustments or exclusions, each rule citing the fact
// it encodes and a source a user can read. Core only: no printing.
//
// File format: {"schema_version": 1, "rules": [<rule>...]} (schema: data/schema/rules.schema.json)
//   {"id": "k17-pcie-multi-gpu-training",       kebab-case, unique within a file
//    "fact": "what it encodes, one sentence",
//    "knowledge": "K17",                          optional: the KNOWLEDGE.md id
//    "source": "https://...",                     optional for user rules; shipped rules have one
//    "when": <condition>,
//    "effects": {"warning": "text", "note": "text",
//                "score": {"budget": 0, "ecosystem": -10},   compute is measured speed:
//                                                               no rule moves it
//                "exclude": "reason",
//                "zh-CN": {"warning": "...", ...}}}   each effect optional, at least one; zh-CN
//                                                     holds the texts in Simplified Chinese
//   {"id": "...", "disabled": true}                 switches off a rule of that id when merged
//
// Condition language:
//   ["fact", "op", value]        op: == != < <= > >= in not-in (in/not-in take an array)
//   {"all": [cond, ...]}         true when every operand is true
//   {"any": [cond, ...]}         true when some operand is true
//   {"not": cond}
// Typing is checked when the file is loaded, never silently false at run time: an unknown
// fact, an operator the fact's type has no meaning for (< on a string or boolean), a value
// of the wrong type, or a value outside a closed set (gpu.segment "datacentre") is an
// Error(data) naming the file and the JSON path, with a "did you mean" where one is close.
// Numbers compare as numbers, strings exactly (case matters), booleans with == and != only.
//
// Missing facts: a fact absent from the Facts map is unknown (e.g. workload.long_run when
// the user gave no duration). Logic is three-valued (Kleene): a comparison on an unknown
// fact is unknown, `not` keeps it unknown, `all` is false if any operand is false, `any` is
// true if any operand is true. A rule fires only when its condition is known true.
//
// Texts (warning, note, exclude) may hold placeholders: {gpu.vram_gb} is replaced by the
// fact's value (numbers without needless decimals, booleans as yes/no, unknown as "?"),
// {config.headroom:pct} by a fraction as a percentage ("7.5%"). "{{" and "}}" are literal
// braces. A placeholder naming an unknown fact is a load error.
//
// Fact vocabulary (name, type, meaning; closed value sets in brackets):
//   gpu.id                   text    catalog id, e.g. "rtx-4090"
//   gpu.name                 text    marketing name
//   gpu.vendor               text    [nvidia amd intel huawei apple]
//   gpu.segment              text    [consumer workstation datacenter]
//   gpu.form_factor          text    [pcie sxm oam mezzanine superchip soc]
//   gpu.vram_gb              number  memory per card as marketed, GB
//   gpu.memory_type          text    GDDR6X, HBM3, LPDDR5X, ...
//   gpu.ecc                  bool    ECC on the card's memory
//   gpu.unified_memory       bool    memory shared with the CPU (system-on-chip)
//   gpu.tdp_w                number  board power, W
//   gpu.ecosystem            text    [cuda rocm oneapi synapseai cann metal]
//   gpu.platform_target      text    kernel target: "sm_89", "gfx942", ...
//   gpu.launch_year          number  year of launch
//   gpu.bf16_tflops          number  dense 16-bit tensor TFLOPS (BF16, else FP16)
//   gpu.fp8                  bool    the card has FP8 tensor math
//   gpu.bf16                 bool    the card has BF16 tensor math
//   gpu.interconnect         text    fast GPU link kind, "none" if none
//   gpu.interconnect_gbs     number  that link's bandwidth per GPU, GB/s
//   gpu.interconnect_max_gpus number largest group linked all-to-all at that bandwidth
//   gpu.used_price           bool    the price used is a used-market price
//   config.count             number  cards in the configuration
//   config.linked            bool    all `count` cards share the fast interconnect
//   config.price             number  price of the configuration, output currency
//   config.headroom          number  fraction of usable memory left per GPU, 0..1
//   config.total_tdp_w       number  board power of all cards, W
//   config.one_card_fits     bool    the workload fits on a single card of this model
//   workload.timed           bool    the user gave an amount of work (--tokens), so speed matters
//   workload.mode            text    [inference full freeze lora qlora]
//   workload.training        bool    any mode but inference
//   workload.params_b        number  model parameters, billions
//   workload.precision       text    [fp32 bf16 fp16 fp8 int8 int4]
//   workload.optimizer       text    [adamw adamw_8bit paged_adamw_8bit sgd adafactor]
//   workload.needs_bitsandbytes bool qlora, or an 8-bit optimizer
//   workload.flash_attn      bool    the workload assumes FlashAttention-style attention
//   workload.long_run        bool    the job runs longer than 24 h (absent when unknown)
//   workload.domestic        bool    the user requires domestic (China-made) hardware
//   workload.seq_len         number  tokens per sample
//   workload.batch           number  micro-batch per GPU
//   workload.engine          text    the inference engine --engine names (absent when not given)
//   config.engine_runs       bool    that engine has a backend for the card's ecosystem
//   config.engine           text    the engine that runs an inference (--engine or the default)
//   workload.weights_format text    a format needing its own kernels: mxfp4 fp8 (else absent)
//   config.weights_kernel   bool    that engine has kernels for it on the card (else absent)
#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpusel {

using FactValue = std::variant<double, bool, std::string>;
using Facts = std::map<std::string, FactValue, std::less<>>;

enum class FactType { number, boolean, text };

struct FactInfo {
  std::string name;
  FactType type;
  std::string meaning;
  std::vector<std::string> values;  // closed set of a text fact; empty = any string
};

// The fixed vocabulary above, in that order.
const std::vector<FactInfo>& fact_vocabulary();
const FactInfo* find_fact(std::string_view name);
std::string to_string(FactType t);  // "number", "boolean", "string"

// The vocabulary's facts by position, in the order of the table above (a unit test holds the
// two together): how the ranker fills a FactTable without string keys.
enum class FactId : std::uint8_t {
  gpu_id,
  gpu_name,
  gpu_vendor,
  gpu_segment,
  gpu_form_factor,
  gpu_vram_gb,
  gpu_memory_type,
  gpu_ecc,
  gpu_unified_memory,
  gpu_tdp_w,
  gpu_ecosystem,
  gpu_platform_target,
  gpu_launch_year,
  gpu_bf16_tflops,
  gpu_fp8,
  gpu_bf16,
  gpu_interconnect,
  gpu_interconnect_gbs,
  gpu_interconnect_max_gpus,
  gpu_used_price,
  config_count,
  config_linked,
  config_price,
  config_headroom,
  config_total_tdp_w,
  config_one_card_fits,
  config_rented,
  config_platform,
  config_platform_priced,
  config_bound,
  workload_timed,
  workload_mode,
  workload_training,
  workload_params_b,
  workload_precision,
  workload_optimizer,
  workload_needs_bitsandbytes,
  workload_flash_attn,
  workload_long_run,
  workload_domestic,
  workload_seq_len,
  workload_batch,
  workload_engine,
  config_engine_runs,
  config_whole_boards,
  config_board_sizes,
  config_engine,
  workload_weights_format,
  config_weights_kernel,
  config_engine_as,
  workload_experts_in_ram,
  config_host_ram_gb,
  config_host_ram_short_gb,
  config_own_host_ram_short_gb,
  gpu_market,
  config_market,
  gpu_tpp,
  config_job_days,
  workload_reserve_given
};
inline constexpr std::size_t kFactCount = 59;
// The position of a vocabulary fact (fact_vocabulary()[fact_index(info)] is info).
std::size_t fact_index(const FactInfo& info);

// The facts of one configuration as a table indexed by FactId: what the ranker builds for
// every configuration it evaluates, with no map of string keys and no copies of texts (a
// text fact views a string that must outlive the table). An unset fact is unknown.
class FactTable {
 public:
  struct Slot {
    bool known = false;
    FactType type = FactType::number;
    double number = 0;
    bool flag = false;
    std::string_view text;
  };
  void number(FactId id, double v) { at(id) = {true, FactType::number, v, false, {}}; }
  void flag(FactId id, bool v) { at(id) = {true, FactType::boolean, 0, v, {}}; }
  void text(FactId id, std::string_view v) { at(id) = {true, FactType::text, 0, false, v}; }
  const Slot& operator[](std::size_t i) const { return slots_[i]; }

 private:
  Slot& at(FactId id) { return slots_[static_cast<std::size_t>(id)]; }
  std::array<Slot, kFactCount> slots_{};
};

// The same facts as a map, and a map as a table: check_facts's exception for a map with a
// fact outside the vocabulary or of the wrong type.
Facts to_facts(const FactTable& t);
FactTable to_table(const Facts& facts);

// Throws std::invalid_argument when a fact is outside the vocabulary or has the wrong type:
// a programming error in whoever builds the Facts, not a user error.
void check_facts(const Facts& facts);

enum class Op { eq, ne, lt, le, gt, ge, in, not_in };
std::string to_string(Op op);  // "==", ..., "in", "not-in"

struct Condition {
  enum class Kind { compare, all, any, negate };
  Kind kind = Kind::all;
  std::string fact;                 // compare only
  int fact_index = -1;              // compare: its position in the vocabulary (-1: by name)
  Op op = Op::eq;                   // compare only
  std::vector<FactValue> values;    // compare: the value, or the in/not-in list
  std::vector<Condition> operands;  // all/any: the operands; negate: exactly one
  bool operator==(const Condition&) const = default;
};

struct ScoreDelta {  // the compute score is measured tokens/s: rules adjust the other two
  double budget = 0, ecosystem = 0;
  ScoreDelta& operator+=(const ScoreDelta& o);
  bool operator==(const ScoreDelta&) const = default;
};

struct Effects {
  std::string warning, note;  // empty: none
  ScoreDelta score;
  std::optional<std::string> exclude;  // the reason
  // The same texts in Simplified Chinese ("zh-CN": {...} in the file), with the same
  // placeholders; empty where the file gives none (then the English text is shown).
  std::string warning_zh, note_zh, exclude_zh;
  bool operator==(const Effects&) const = default;
};

struct Rule {
  std::string id, fact, knowledge, source;
  Condition when;
  Effects effects;
  bool disabled = false;
  std::string origin;  // the file it came from
  bool operator==(const Rule&) const = default;
};

struct RuleSet {
  std::string origin;
  std::vector<Rule> rules;
  const Rule* find(std::string_view id) const;
  bool operator==(const RuleSet&) const = default;
};

struct Message {
  std::string rule_id, text, source;
};

struct RuleOutcome {
  std::vector<Message> warnings, notes;
  ScoreDelta delta;  // sum of the fired rules' score effects
  bool excluded = false;
  std::string exclude_reason, exclude_rule;  // the first exclusion, in rule order
  std::vector<std::string> fired;            // ids of every rule that fired, in order
};

// Parses a rules document. Throws Error(data) "origin: rules[3].when[0]: unknown fact
// 'gpu.vrm_gb' (did you mean gpu.vram_gb?)" on any problem of shape, type or vocabulary.
RuleSet parse_rules(const nlohmann::json& doc, const std::string& origin);

// A rule of `extra` replaces the one with the same id in place; new ids are appended.
void merge_rules(RuleSet& base, const RuleSet& extra);

// The embedded data/rules.json (or `base_path` when set), then each of `extra_paths`
// merged in order: what `--rules FILE` adds. Error(data) names the file at fault.
RuleSet load_rules(const std::string& base_path = "",
                   const std::vector<std::string>& extra_paths = {});

// Three-valued evaluation: nullopt when the answer depends on an unknown fact.
std::optional<bool> evaluate(const Condition& c, const Facts& facts);
std::optional<bool> evaluate(const Condition& c, const FactTable& facts);

// Replaces the {fact} and {fact:pct} placeholders of a (load-checked) text.
std::string render_text(std::string_view text, const Facts& facts);
std::string render_text(std::string_view text, const FactTable& facts);
std::string format_fact(const FactValue& v);

// Texts of the rules of `set` (warning, note, exclude) that have no zh-CN translation, as
// "rule-id.warning": what `catalog validate` reports.
std::vector<std::string> untranslated_texts(const RuleSet& set);

// Every enabled rule, in order, whose condition is known true (see check_facts for the
// exception thrown on malformed facts).
// `render`: fill in the warning, note and exclusion texts; the ranker asks for them only
// for the configurations it keeps (the rest are counted, never shown).
RuleOutcome apply_rules(const RuleSet& rules, const Facts& facts, bool render = true);
// The same on a table (the ranker's path): the map form converts to this one.
RuleOutcome apply_rules(const RuleSet& rules, const FactTable& facts, bool render = true);

}  // namespace gpusel
