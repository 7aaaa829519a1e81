// `gpusel catalog list|show|validate`.
#include <algorithm>

#include "cli/context.hpp"
#include "cli/render.hpp"
#include "gpusel/answer/answers.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/threads.hpp"

namespace gpusel::cli {
namespace {

struct ListArgs {
  std::string vendor, segment, format = "table";
  double min_vram = 0;
};

std::string opt(const std::optional<double>& v, int decimals) {
  return v ? fixed(*v, decimals) : "-";
}

std::string link(const Gpu& g) {
  if (g.interconnect.kind == "none") return "PCIe";
  return g.interconnect.kind + " " + fixed(g.interconnect.bandwidth_gbs, 0);
}

std::string latest_price_text(const Gpu& g) {
  const Price* p = latest_price(g);
  return p ? fixed(p->amount, 0) + " " + p->currency + " " + p->kind : "-";
}

// One row per card, `row(card)`: a long list's rows are made across threads, each into its
// own place (formatting 100,000 rows was a tenth of `catalog list`'s time, on one thread).
template <typename Row>
std::vector<std::vector<std::string>> rows_of(const std::vector<const Gpu*>& gpus, Row row) {
  constexpr std::size_t kThreadsFrom = 4096, kChunk = 1024;
  std::vector<std::vector<std::string>> rows(gpus.size());
  for_chunks(gpus.size(), kChunk, gpus.size() >= kThreadsFrom ? worker_threads() : 1,
             [&](unsigned, std::size_t begin, std::size_t end) {
               for (std::size_t i = begin; i < end; ++i) rows[i] = row(*gpus[i]);
             });
  return rows;
}

// Narrow terminals lose the least-asked columns first (ecosystem, then FP32...).
Table gpu_table(const std::vector<const Gpu*>& gpus) {
  Table t{{{"id"},
           {"name", false, 0, true},
           {"vendor", false, 5},
           {"segment", false, 6},
           {"vram_gb", true},
           {"memory", false, 7},
           {"bw_gbs", true, 2},
           {"bf16_tflops", true, 1},
           {"fp32_tflops", true, 8},
           {"tdp_w", true, 4},
           {"link_gbs", false, 3},
           {"ecosystem", false, 9},
           {"latest price"}},
          {}};
  t.rows = rows_of(gpus, [](const Gpu& g) -> std::vector<std::string> {
    return {g.id,
            g.name,
            g.vendor,
            g.segment,
            fixed(g.vram_gb, 0),
            g.memory_type,
            fixed(g.bandwidth_gbs, 0),
            opt(g.bf16_tflops_dense, 1),
            fixed(g.fp32_tflops, 1),
            fixed(g.tdp_w, 0),
            link(g),
            g.ecosystem,
            latest_price_text(g)};
  });
  return t;
}

std::string raw_opt(const std::optional<double>& v) { return v ? raw_number(*v) : ""; }

// For spreadsheets: one value per column, units in the headers, the price split in four.
Table gpu_csv(const std::vector<const Gpu*>& gpus) {
  Table t;
  for (const char* h :
       {"id", "name", "vendor", "segment", "vram_gb", "memory_type", "bandwidth_gbs",
        "bf16_tflops_dense", "fp32_tflops", "tdp_w", "interconnect", "interconnect_gbs",
        "ecosystem", "price", "currency", "price_kind", "price_as_of"})
    t.columns.push_back({h});
  t.rows = rows_of(gpus, [](const Gpu& g) -> std::vector<std::string> {
    const Price* p = latest_price(g);
    return {g.id,
            g.name,
            g.vendor,
            g.segment,
            raw_number(g.vram_gb),
            g.memory_type,
            raw_number(g.bandwidth_gbs),
            raw_opt(g.bf16_tflops_dense),
            raw_number(g.fp32_tflops),
            raw_number(g.tdp_w),
            g.interconnect.kind,
            raw_number(g.interconnect.bandwidth_gbs),
            g.ecosystem,
            p ? raw_number(p->amount) : "",
            p ? p->currency : "",
            p ? p->kind : "",
            p ? p->as_of : ""};
  });
  return t;
}

int run_list(Context& ctx, const ListArgs& a) {
  const Format f = parse_format(a.format);
  // JSON prints each record as read, so only that format keeps the file's text.
  const Catalog& cat = f == Format::json ? ctx.catalog_with_text() : ctx.catalog();
  const CatalogListAnswer ans = list_gpus(cat, {a.vendor, a.segment, a.min_vram});
  const auto& picked = ans.gpus;
  Output o;
  // Only the table the format writes: at 100,000 cards each is tens of megabytes.
  if (f == Format::table) o.table = gpu_table(picked);
  if (f == Format::csv) o.csv = gpu_csv(picked);
  o.after = std::to_string(picked.size()) + " of " + std::to_string(ans.total) + " GPUs (" +
            cat.origin + "); tensor TFLOPS are dense, FP32 accumulate\n";
  o.json = {{"schema_version", 1}, {"count", picked.size()}, {"gpus", nlohmann::json::array()}};
  // Each record is re-read from its text: only for the format that shows it.
  if (f == Format::json)
    for (const Gpu* g : picked) o.json["gpus"].push_back(g->raw());
  emit(*ctx.out, o, f);
  return 0;
}

Table record_table(const nlohmann::json& rec) {
  Table t{{{"field"}, {"value", false, 0, true}}, {}};
  for (const auto& [key, value] : rec.items())
    t.rows.push_back({key, value.is_string() ? value.get<std::string>() : value.dump()});
  return t;
}

int run_show(Context& ctx, const std::string& id, const std::string& format) {
  const Format f = parse_format(format, {Format::table, Format::json});
  const Gpu& g = require_gpu(ctx.catalog_with_text(), id);
  Output o;
  const nlohmann::json raw = g.raw();
  o.table = record_table(raw);
  o.json = {{"schema_version", 1}, {"gpu", raw}};
  emit(*ctx.out, o, f);
  return 0;
}

void add_list(CLI::App& catalog, Context& ctx) {
  auto args = std::make_shared<ListArgs>();
  auto* cmd = catalog.add_subcommand("list", "List catalog GPUs (filters combine)");
  cmd->add_option("--vendor", args->vendor, "nvidia, amd, intel, huawei or apple");
  cmd->add_option("--segment", args->segment, "consumer, workstation or datacenter");
  cmd->add_option("--min-vram", args->min_vram, "only cards with at least this many GB");
  cmd->add_option("--format", args->format, format_help());
  cmd->callback([&ctx, args] { ctx.action = [&ctx, args] { return run_list(ctx, *args); }; });
}

void add_show(CLI::App& catalog, Context& ctx) {
  auto id = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("table");
  auto* cmd = catalog.add_subcommand("show", "Show every field of one GPU, with its sources");
  cmd->add_option("id", *id, "GPU id, e.g. rtx-4090")->required();
  cmd->add_option("--format", *format, format_help({Format::table, Format::json}));
  cmd->callback([&ctx, id, format] {
    ctx.action = [&ctx, id, format] { return run_show(ctx, *id, *format); };
  });
}

}  // namespace

void add_catalog_commands(CLI::App& app, Context& ctx) {
  auto* catalog =
      app.add_subcommand("catalog", "List, show and validate the GPU catalog; data freshness");
  catalog->require_subcommand(1);
  add_list(*catalog, ctx);
  add_show(*catalog, ctx);
  add_validate_command(*catalog, ctx);
  add_status_command(*catalog, ctx);
}

}  // namespace gpusel::cli
