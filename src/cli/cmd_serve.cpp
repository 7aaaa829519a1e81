// `gpusel serve`: serving capacity, replicas and cost per million tokens.
#include "cli/cmd_serve.hpp"

#include <fmt/format.h>

#include <cmath>

#include "cli/rank_options.hpp"
#include "cli/serve_view.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel::cli {
namespace {

struct ServeArgs {
  RankArgs rank;
  std::string gpu, prompt = "222:172", output = "219:172", rank_by = "buy";
  int count = kNotGiven, top = 10;
  std::optional<double> rps, users;
  double think_s = 0;
  double ttft_ms = 2000, tpot_ms = 200, percentile = 99, years = 0;
};

// The flags shared with recommend that mean nothing for serving: the workload is inference,
// the batch is the engine's, lengths come from --prompt-len/--output-len; training's
// parallelism, checkpointing and framework behaviours do not apply.
void drop_options(CLI::App* cmd) {
  for (const char* name : {"--mode",
                           "--batch",
                           "--seq-len",
                           "--prompt-len",
                           "--tokens",
                           "--dataset-tokens",
                           "--epochs",
                           "--weights",
                           "--optimizer",
                           "--amp",
                           "--lora-rank",
                           "--lora-targets",
                           "--lora-layers",
                           "--loss",
                           "--offload",
                           "--grad-accum",
                           "--grad-ckpt",
                           "--no-grad-ckpt",
                           "--train-embeddings",
                           "--trainable-layers",
                           "--tp",
                           "--pp",
                           "--vpp",
                           "--cp",
                           "--ep",
                           "--shard-group",
                           "--selective-ckpt",
                           "--comm-overlap",
                           "--framework",
                           "--adapter-dtype",
                           "--lora-dropout",
                           "--opt-in-bwd",
                           "--no-opt-in-bwd",
                           "--act-offload",
                           "--no-act-offload",
                           "--nf4-keeps-input",
                           "--no-nf4-keeps-input",
                           "--dequant-saved",
                           "--no-dequant-saved",
                           "--kbit-upcast",
                           "--no-kbit-upcast",
                           "--ds-live-params",
                           "--ds-overlap-comm",
                           "--no-ds-overlap-comm",
                           "--double-quant"})
    if (CLI::Option* o = cmd->get_option_no_throw(name)) cmd->remove_option(o);
}

Targets targets_of(const ServeArgs& a) {
  if (a.percentile != 50 && a.percentile != 90 && a.percentile != 99)
    throw usage_error(fmt::format("--percentile {} must be 50, 90 or 99", a.percentile));
  for (const auto& [flag, v] :
       {std::pair{"--ttft-ms", a.ttft_ms}, std::pair{"--tpot-ms", a.tpot_ms}})
    if (!(v >= 0)) throw usage_error(fmt::format("{} {} must be >= 0 (0: no target)", flag, v));
  Targets t;
  t.percentile = a.percentile / 100;
  if (a.ttft_ms > 0) t.ttft_s = a.ttft_ms / 1000;
  if (a.tpot_ms > 0) t.tpot_s = a.tpot_ms / 1000;
  return t;
}

ServeTarget target_of(const ServeArgs& a) {
  if (a.rps && a.users) throw usage_error("give --rps or --users, not both");
  // Upper bounds far above any deployment keep the arithmetic finite.
  if (a.rps && !(*a.rps > 0 && *a.rps <= 1e6))
    throw usage_error("--rps must be positive and at most 1,000,000");
  if (a.users && !(*a.users >= 1 && *a.users <= 1e8))
    throw usage_error("--users must be 1..100,000,000");
  if (a.rank_by != "buy" && a.rank_by != "rent")
    throw usage_error("--rank-by '" + quote_input(a.rank_by) + "' must be buy or rent");
  if (a.years < 0) throw usage_error("--years must be positive");
  ServeTarget t;
  t.rps = a.rps, t.users = a.users;
  if (!(a.think_s >= 0 && a.think_s <= 1e6))
    throw usage_error("--think-s must be 0..1,000,000 seconds");
  if (a.think_s > 0 && !a.users) throw usage_error("--think-s goes with --users");
  t.traffic = {parse_lengths("--prompt-len", a.prompt), parse_lengths("--output-len", a.output),
               a.think_s};
  t.targets = targets_of(a);
  // --engine is the workload flag every command shares; serve models the engines of
  // data/serving.json (an engine speed/ knows but serving does not: usage error).
  t.engine = a.rank.workload.engine;
  if (!t.engine.empty()) t.engine = default_serving_data().engine(t.engine).name;
  t.years = a.years;
  t.rank_by_rent = a.rank_by == "rent";
  return t;
}

// The workload as served: inference of one sequence of the mean lengths (the estimator's
// per-card weights and the one-sequence memory check), sharded per configuration.
void shape_workload(Workload& w, const Traffic& t) {
  if (is_training(w.mode)) throw usage_error("serve runs inference only");
  w.batch = 1;
  w.prompt_len = std::max(1, int(std::lround(t.prompt.mean)));
  w.seq_len = w.prompt_len + std::max(1, int(std::lround(t.output.mean)));
  // serve has no --seq-len: name the lengths the user gave.
  const int cap = w.model.max_context;
  if (cap > 0 && w.seq_len > cap && !w.allow_long_context)
    throw usage_error(fmt::format(
        "--prompt-len {} + --output-len {} = {} tokens is beyond {}'s context of {} tokens "
        "(--allow-long-context estimates it anyway)",
        w.prompt_len, w.seq_len - w.prompt_len, w.seq_len,
        w.model.id.empty() ? std::string("the model") : w.model.id, cap));
  validate(w);
}

int run_serve(Context& ctx, const ServeArgs& a) {
  const Format f = parse_format(a.rank.format);
  if (a.top < 1) throw usage_error(fmt::format("--top {} must be at least 1", a.top));
  Session s = resolve_session(a.rank);
  ServeQuery q;
  q.request.target = target_of(a);
  shape_workload(s.request.workload, q.request.target.traffic);
  q.request.rank = s.request;
  q.top = a.top;
  const std::vector<ModelArch> models = load_models(a.rank.workload.models_path);
  q.models = &models;
  if (!a.gpu.empty()) {
    // The cards are the user's: a budget filters what serve ranks, and --gpu ranks nothing.
    if (!a.rank.budget.empty())
      throw usage_error(
          "--budget filters the configurations serve ranks; with --gpu the cards "
          "are given (drop --budget, or drop --gpu to rank within it)");
    q.gpu = &require_gpu(ctx.catalog(), a.gpu);
    q.count = card_count(a.count, a.rank.workload);
    if (q.count < 1 || q.count > kMaxGpus)
      throw usage_error(fmt::format("--count must be 1..{}", kMaxGpus));
  } else if (a.count != kNotGiven) {
    throw usage_error("--count needs --gpu");
  }
  const Sources src{ctx.catalog(), [&ctx]() -> const Cloud* { return &ctx.cloud(); }, s.rules,
                    s.rates};
  const ServeAnswer ans = serve(src, q);
  emit(*ctx.out, serve_output({s, q, ans, a.rank.explain}), f);
  return ans.met ? 0 : static_cast<int>(ExitCode::negative);
}

}  // namespace

void add_serve_command(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand(
      "serve",
      "Serving capacity: requests/s and users within TTFT/TPOT targets, replicas, "
      "cost per million tokens bought and rented");
  add_evaluation_options(cmd, a->rank);
  add_search_options(cmd, a->rank);
  drop_options(cmd);
  cmd->add_option("--gpu", a->gpu, "evaluate these cards (what does my 2x H100 serve?)");
  cmd->add_option("--count", a->count, "cards of --gpu (default: --gpus, else 1)");
  cmd->add_option("--rps", a->rps, "requests per second to serve (Poisson arrivals)");
  cmd->add_option("--users", a->users,
                  "concurrent users, each sending the next request when "
                  "the last one ends (after --think-s)");
  cmd->add_option("--think-s", a->think_s,
                  "with --users: seconds each user reads and types between an answer and the "
                  "next request (default 0: a benchmark's concurrency)");
  cmd->add_option("--prompt-len", a->prompt,
                  "prompt tokens per request, mean or mean:sd (default 222:172, MLPerf's "
                  "OpenOrca set)");
  cmd->add_option("--output-len", a->output,
                  "output tokens per request, mean or mean:sd (default 219:172)");
  cmd->add_option("--ttft-ms", a->ttft_ms, "time-to-first-token target (default 2000; 0: none)");
  cmd->add_option("--tpot-ms", a->tpot_ms, "time-per-output-token target (default 200; 0: none)");
  cmd->add_option("--percentile", a->percentile,
                  "50, 90 or 99: the percentile the targets hold at (default 99, as MLPerf)");
  cmd->add_option("--years", a->years, "amortise a purchase over this many years (default 3)");
  cmd->add_option("--rank-by", a->rank_by, "buy or rent: which cost ranks (default buy)");
  cmd->add_option("--top", a->top, "how many configurations to show (default 10)");
  cmd->callback([&ctx, a] { ctx.action = [&ctx, a] { return run_serve(ctx, *a); }; });
}

}  // namespace gpusel::cli
