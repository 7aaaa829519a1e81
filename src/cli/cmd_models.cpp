// `gpusel models list|show`: the architecture presets of data/models.json.
#include "cli/cmd_estimate.hpp"
#include "cli/render.hpp"
#include "cli/workload_options.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/json/json_source.hpp"

namespace gpusel::cli {
namespace {

struct ModelsArgs {
  std::string path, format = "table";
};

std::string opt_int(const std::optional<int>& v) { return v ? std::to_string(*v) : "-"; }

Table models_table(const std::vector<ModelArch>& models) {
  Table t{{{"id"},
           {"name"},
           {"kind"},
           {"params_b", true},
           {"active_b", true},
           {"layers", true},
           {"hidden", true},
           {"heads", true},
           {"kv_heads", true},
           {"ffn", true},
           {"vocab", true},
           {"context", true},
           {"window", true},
           {"moe"}},
          {}};
  for (const auto& m : models) {
    const std::string moe =
        m.moe ? std::to_string(m.moe->active) + "/" + std::to_string(m.moe->experts) : "-";
    t.rows.push_back({m.id, m.name, m.kind, fixed(m.params / 1e9, 2),
                      m.active_params ? fixed(*m.active_params / 1e9, 2) : "-",
                      std::to_string(m.layers), std::to_string(m.hidden), std::to_string(m.heads),
                      std::to_string(m.kv_heads), std::to_string(m.intermediate),
                      std::to_string(m.vocab), std::to_string(m.max_context),
                      opt_int(m.sliding_window), moe});
  }
  return t;
}

nlohmann::json models_json(const std::vector<ModelArch>& models) {
  nlohmann::json j{
      {"schema_version", 1}, {"count", models.size()}, {"models", nlohmann::json::array()}};
  for (const auto& m : models)
    j["models"].push_back(
        {{"id", m.id},
         {"name", m.name},
         {"family", m.family},
         {"kind", m.kind},
         {"params", m.params},
         {"active_params", m.active_params ? nlohmann::json(*m.active_params) : nlohmann::json()},
         {"layers", m.layers},
         {"hidden", m.hidden},
         {"heads", m.heads},
         {"kv_heads", m.kv_heads},
         {"head_dim", m.head_dim},
         {"intermediate", m.intermediate},
         {"vocab", m.vocab},
         {"max_context", m.max_context},
         {"source", m.source}});
  return j;
}

int run_list(Context& ctx, const ModelsArgs& a) {
  const Format f = parse_format(a.format);
  const auto models = load_models(a.path);
  Output o;
  o.table = models_table(models);
  o.after = std::to_string(models.size()) + " presets (" +
            (a.path.empty() ? std::string("embedded data/models.json") : a.path) +
            "); a bare --params COUNT gets a typical Llama-3-style shape\n";
  o.json = models_json(models);
  o.csv = json_rows(o.json["models"], {{"id", "/id"},
                                       {"name", "/name"},
                                       {"family", "/family"},
                                       {"kind", "/kind"},
                                       {"params", "/params"},
                                       {"active_params", "/active_params"},
                                       {"layers", "/layers"},
                                       {"hidden", "/hidden"},
                                       {"heads", "/heads"},
                                       {"kv_heads", "/kv_heads"},
                                       {"head_dim", "/head_dim"},
                                       {"intermediate", "/intermediate"},
                                       {"vocab", "/vocab"},
                                       {"max_context", "/max_context"},
                                       {"source", "/source"}});
  emit(*ctx.out, o, f);
  return 0;
}

// The preset's record as written in the file (every field, its source and notes), and the
// parameter counts gpusel computes from its shape.
int run_show(Context& ctx, const ModelsArgs& a, const std::string& id) {
  const Format f = parse_format(a.format, {Format::table, Format::json});
  const std::string origin = a.path.empty() ? "data/models.json" : a.path;
  const std::string text = load_text(a.path, "data/models.json");
  // A user's file gets every check `catalog validate` runs (models_from_text) before its
  // record is shown; the raw document only supplies the fields as written.
  const auto models = models_from_text(text, origin, a.path.empty());
  const nlohmann::json doc = parse_located(text, origin).doc;
  const ModelArch& m = require_model(models, id);
  nlohmann::json record;
  for (const auto& r : doc["models"])
    if (r.value("id", "") == m.id) record = r;
  const ArchParams p = arch_params(m);
  Output o;
  o.before = safe_cell(m.name) + " (" + m.id + ", " + safe_cell(origin) + ")\n";
  o.table = {{{"field"}, {"value", false, 0, true}}, {}};
  for (const auto& [key, value] : record.items())
    o.table.rows.push_back({key, value.is_string() ? value.get<std::string>() : value.dump()});
  o.after = "computed from the shape: " + fixed(p.total / 1e9, 3) + "B parameters, " +
            fixed(p.active / 1e9, 3) + "B active per token, " + fixed(p.linear / 1e9, 3) +
            "B in linear layers\n";
  o.json = {{"schema_version", 1},
            {"model", record},
            {"computed_params",
             {{"total", p.total},
              {"active", p.active},
              {"linear", p.linear},
              {"embedding", p.embedding},
              {"lm_head", p.lm_head}}}};
  emit(*ctx.out, o, f);
  return 0;
}

}  // namespace

void add_models_commands(CLI::App& app, Context& ctx) {
  CLI::App* models = app.add_subcommand("models", "List and show the model architecture presets");
  models->require_subcommand(1);
  auto args = std::make_shared<ModelsArgs>();
  CLI::App* list = models->add_subcommand("list", "list the presets with their shapes");
  list->add_option("--models", args->path, "presets JSON replacing the embedded one");
  list->add_option("--format", args->format, format_help());
  list->callback([&ctx, args] { ctx.action = [&ctx, args] { return run_list(ctx, *args); }; });
  auto show_args = std::make_shared<ModelsArgs>();
  auto id = std::make_shared<std::string>();
  CLI::App* show = models->add_subcommand("show", "show one preset's full record and sources");
  show->add_option("id", *id, "model preset id, e.g. llama-3.1-8b")->required();
  show->add_option("--models", show_args->path, "presets JSON replacing the embedded one");
  show->add_option("--format", show_args->format, format_help({Format::table, Format::json}));
  show->callback([&ctx, show_args, id] {
    ctx.action = [&ctx, show_args, id] { return run_show(ctx, *show_args, *id); };
  });
}

}  // namespace gpusel::cli
