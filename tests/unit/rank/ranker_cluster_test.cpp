// Configurations beyond one machine (nodes joined by a cluster network) and the one path for
// a user's --shard: what the user fixed holds on every multi-card configuration.
#include <catch2/catch.hpp>

#include "ranker_fixtures.hpp"

using namespace gpusel;
using namespace ranker_fixtures;

namespace {

Gpu ranker_card(const std::string& segment, const std::string& form, const std::string& link_kind,
                int link_max) {
  Gpu g;
  g.id = "test-card", g.vendor = "nvidia", g.architecture = "Test";
  g.segment = segment, g.form_factor = form, g.memory_type = "HBM3";
  g.interconnect = {link_kind, link_kind == "none" ? 0.0 : 600.0, link_max};
  g.pcie_gen = 5, g.pcie_lanes = 16;
  return g;
}

std::vector<int> counts(const std::vector<Config>& cs) {
  std::vector<int> out;
  for (const auto& c : cs) out.push_back(c.count);
  return out;
}

}  // namespace

TEST_CASE("configurations beyond 8: nodes of 8 joined by the card's cluster network") {
  const Gpu hgx = ranker_card("datacenter", "sxm", "nvlink", 8);
  const auto cs = configurations(hgx, 64, bare_7b_lora());
  CHECK(counts(cs) == std::vector<int>{1, 2, 4, 8, 16, 32, 64});
  for (const auto& c : cs) {
    CAPTURE(c.count);
    if (c.count > 1) CHECK(c.linked);  // inside each node
    if (c.count > 8) CHECK(c.interconnect.find("nodes over InfiniBand") != std::string::npos);
  }
  CHECK(cs[4].interconnect == "nvlink 600 GB/s, 2 nodes over InfiniBand NDR 400 Gb/s per GPU");
  // PCIe servers cluster over Ethernet; consumer boards and Macs never do.
  const Gpu ws = ranker_card("workstation", "pcie", "none", 1);
  CHECK(counts(configurations(ws, 32, bare_7b_lora())).back() == 32);
  CHECK(configurations(ws, 32, bare_7b_lora()).back().interconnect.find("RoCE") !=
        std::string::npos);
  CHECK(counts(configurations(ranker_card("consumer", "pcie", "none", 1), 4096, bare_7b_lora())) ==
        std::vector<int>{1, 2});
}

TEST_CASE("a ranking with --max-gpus 64 offers clusters for a 70B full fine-tune, never more") {
  RankRequest req;
  req.workload = bare_7b_lora();
  req.workload.model = model("llama-2-70b");
  req.workload.mode = Mode::full;
  req.max_gpus = 64;
  const Ranking r = rank(catalog(), rules(), rates(), req);
  bool cluster = false;
  for (const auto& x : r.results) {
    CHECK(x.config.count <= 64);
    if (x.config.count > 8) {
      cluster = true;
      CHECK(x.config.gpu->segment != "consumer");
      CHECK(x.tokens_per_s > 0);
    }
    // Collectives the step cannot hide that outlast its compute set the speed; MFU counts
    // the waits (scaling) in the time a card takes per token.
    const Throughput& t = x.throughput;
    CHECK((t.bound == "communication") == (t.scaling < 0.5));
    CHECK(t.mfu > 0);
    CHECK(t.mfu < 1);
  }
  CHECK(cluster);
}

TEST_CASE("modules are bought as whole boards, while rentals and owned servers take any count") {
  RankRequest req;
  req.workload = bare_7b_lora();
  const Gpu& b200 = require_gpu(catalog(), "b200");
  const Gpu& h100 = require_gpu(catalog(), "h100-sxm");
  auto excluded_by = [&](const Gpu& g, int count, bool rented, const RankRequest& q) {
    Config c = make_config(g, count, q.workload);
    c.rented = rented;
    const Result r = evaluate(c, rules(), rates(), q);
    return r.rules.excluded ? r.rules.exclude_rule : std::string();
  };
  CHECK(excluded_by(b200, 1, false, req) == "whole-boards-only");
  CHECK(excluded_by(b200, 4, false, req) == "whole-boards-only");
  CHECK(excluded_by(b200, 8, false, req).empty());
  CHECK(excluded_by(b200, 16, false, req).empty());
  CHECK(excluded_by(h100, 4, false, req).empty());  // HGX H100 4-GPU boards exist
  CHECK(excluded_by(h100, 2, false, req) == "whole-boards-only");
  CHECK(excluded_by(b200, 1, true, req).empty());  // a 1-GPU instance is rented as it is
  RankRequest owned = req;
  owned.cards_only = true;
  CHECK(excluded_by(b200, 2, false, owned).empty());
  // A ranking never offers a purchase that is part of a board.
  req.max_gpus = 8;
  for (const auto& x : rank(catalog(), rules(), rates(), req).results) {
    const Platform* p = x.platform_quote.platform;
    if (p && !p->sold_in.empty()) CHECK(x.config.count % p->sold_in.front() == 0);
  }
}

TEST_CASE("a --shard the user fixed holds: none means layers split, no speed-up") {
  RankRequest req;
  req.workload = bare_7b_lora();
  req.workload.shard_given = true;
  req.workload.shard = Shard::none;
  const Gpu& g = require_gpu(catalog(), "rtx-a6000");
  const Result one = evaluate(make_config(g, 1, req.workload), rules(), rates(), req);
  const Result four = evaluate(make_config(g, 4, req.workload), rules(), rates(), req);
  CHECK(four.config.shard == Shard::none);
  CHECK(workload_for(four.config, req).shard == Shard::none);
  CHECK(four.tokens_per_s <= one.tokens_per_s);
  CHECK(four.tokens_per_s > 0.9 * one.tokens_per_s);
  req.workload.shard_given = false;  // not given: the configuration's recipe (FSDP), a speed-up
  const Result fsdp = evaluate(make_config(g, 4, req.workload), rules(), rates(), req);
  CHECK(fsdp.config.shard == Shard::fsdp);
  CHECK(fsdp.tokens_per_s > 3 * one.tokens_per_s);
}
